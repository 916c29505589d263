package dev.retrykit.internal;

import dev.retrykit.context.RetryContext;
import org.jspecify.annotations.Nullable;

/**
 * The retry contexts of the calls in progress on one thread, innermost last. It also keeps a pool of
 * reusable contexts per nesting depth so that a synchronous call allocates no context: one
 * thread-local read per call, no set or clear.
 */
public final class ContextStack {

	private static final ThreadLocal<ContextStack> STACKS = ThreadLocal.withInitial(ContextStack::new);

	/**
	 * A direct-mapped cache of stacks by thread id in front of {@link #STACKS}: reading a thread-local
	 * costs several nanoseconds per call, more than the rest of a successful call. Thread ids are never
	 * reused and a stack records its owner's id, so a hit is exact; a miss (first use, or two threads
	 * whose ids share a slot) falls back to the thread-local and takes the slot. The array is read and
	 * written without locks: a slot holds a whole reference and {@link #ownerId} is final.
	 */
	private static final ContextStack[] BY_THREAD_ID = new ContextStack[1024];

	private final long ownerId = Thread.currentThread().getId();

	/** The pooled contexts, one per nesting depth, each reused by every call at its depth. */
	private MutableRetryContext[] pool = new MutableRetryContext[4];

	/**
	 * The pooled context of depth 0, also held in {@code pool[0]}: most calls are not nested, and a
	 * field spares them the array's loads and bounds checks and the parent's comparison (a successful
	 * first attempt measured about 15% faster).
	 */
	private final MutableRetryContext outermost = new MutableRetryContext();

	/**
	 * The contexts owned by someone else (a cached stateful context, an async attempt's context) at the
	 * depths where one is pushed; {@code null} where the depth's pooled context is in use, so that a
	 * pooled push and pop write nothing here.
	 */
	private @Nullable RetryContext[] foreign = new RetryContext[4];

	private int depth;

	private ThreadCounters[] counters = new ThreadCounters[8];

	private ContextStack() {
		this.pool[0] = this.outermost;
	}

	/** {@return this thread's stack} */
	public static ContextStack get() {
		long id = Thread.currentThread().getId();
		ContextStack cached = BY_THREAD_ID[(int) id & (BY_THREAD_ID.length - 1)];
		return (cached != null && cached.ownerId == id) ? cached : lookUp(id);
	}

	private static ContextStack lookUp(long id) {
		ContextStack stack = STACKS.get();
		BY_THREAD_ID[(int) id & (BY_THREAD_ID.length - 1)] = stack;
		return stack;
	}

	/** {@return the innermost context in progress on this thread, or {@code null}} */
	public static @Nullable RetryContext current() {
		return get().top();
	}

	/**
	 * Pushes the pooled context of the next depth, reset for a new call.
	 * @param name the instance name
	 * @return the context, valid until {@link #popPooled}
	 */
	public MutableRetryContext pushPooled(String name) {
		int index = this.depth;
		if (index == 0) {
			MutableRetryContext context = this.outermost;
			context.reset(name, null);
			this.depth = 1;
			return context;
		}
		MutableRetryContext[] pool = this.pool;
		if (index >= pool.length) {
			pool = grow();
		}
		MutableRetryContext context = pool[index];
		if (context == null) {
			context = new MutableRetryContext();
			pool[index] = context;
		}
		// A depth's pooled context keeps its name and parent between calls, so in steady state this
		// stores nothing: a reference store into a long-lived object costs a GC write barrier.
		context.reset(name, at(index - 1));
		this.depth = index + 1;
		return context;
	}

	/**
	 * Pops a context that {@link #pushPooled} returned, and clears what its call left in it.
	 * @param context the innermost context, pooled
	 */
	public void popPooled(MutableRetryContext context) {
		this.depth--;
		context.release();
	}

	/**
	 * Pushes a context owned by someone else (a cached stateful context, an async attempt's context).
	 * @param context the context
	 */
	public void push(RetryContext context) {
		if (this.depth >= this.pool.length) {
			grow();
		}
		this.foreign[this.depth++] = context;
	}

	/** Pops the innermost context, one that {@link #push} pushed (a pooled one is popped by {@link #popPooled}). */
	public void pop() {
		this.foreign[--this.depth] = null;
	}

	/**
	 * {@return this thread's block of its counters, created on first use}
	 * @param runtime an instance
	 */
	public ThreadCounters counters(RetryRuntime runtime) {
		return counters(runtime.countersId, runtime.counters);
	}

	/**
	 * {@return this thread's block of them, created on first use}
	 * @param instance an instance's counters
	 */
	public ThreadCounters counters(RetryCounters instance) {
		return counters(instance.id, instance);
	}

	private ThreadCounters counters(int id, RetryCounters instance) {
		ThreadCounters[] blocks = this.counters;
		if (id < blocks.length) {
			ThreadCounters block = blocks[id];
			if (block != null) {
				return block;
			}
		}
		return newCounters(instance);
	}

	private ThreadCounters newCounters(RetryCounters instance) {
		int id = instance.id;
		if (id >= RetryCounters.INDEXED_INSTANCES) {
			return instance.overflowBlock();
		}
		if (id >= this.counters.length) {
			this.counters = java.util.Arrays.copyOf(this.counters,
					Math.min(RetryCounters.INDEXED_INSTANCES, Math.max(id + 1, this.counters.length * 2)));
		}
		ThreadCounters block = instance.newBlock();
		this.counters[id] = block;
		return block;
	}

	/** @return the number of instance slots this thread's stack holds (for tests) */
	int indexedSlots() {
		return this.counters.length;
	}

	/** {@return the innermost context, or {@code null}} */
	public @Nullable RetryContext top() {
		int index = this.depth - 1;
		return (index < 0) ? null : at(index);
	}

	/**
	 * {@return the innermost context as it can be kept once its attempt returned, or {@code null}}: a
	 * pooled one (a first attempt's) is reused after, so it is then a copy of it as it is now.
	 */
	public @Nullable RetryContext topToKeep() {
		int index = this.depth - 1;
		if (index < 0) {
			return null;
		}
		RetryContext foreign = this.foreign[index];
		return (foreign != null) ? foreign : this.pool[index].copy();
	}

	private RetryContext at(int index) {
		RetryContext foreign = this.foreign[index];
		return (foreign != null) ? foreign : this.pool[index];
	}

	private MutableRetryContext[] grow() {
		int length = this.pool.length * 2;
		this.foreign = java.util.Arrays.copyOf(this.foreign, length);
		this.pool = java.util.Arrays.copyOf(this.pool, length);
		return this.pool;
	}

}
