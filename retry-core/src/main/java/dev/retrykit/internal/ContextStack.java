package dev.retrykit.internal;

import dev.retrykit.RetryContext;
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

	private MutableRetryContext[] pool = new MutableRetryContext[4];

	private RetryContext[] active = new RetryContext[4];

	private int depth;

	private ThreadCounters[] counters = new ThreadCounters[8];

	private ContextStack() {
	}

	/** @return this thread's stack */
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

	/** @return the innermost context in progress on this thread, or {@code null} */
	public static @Nullable RetryContext current() {
		return get().top();
	}

	/**
	 * Pushes a pooled context, reset for a new call.
	 * @param name the instance name
	 * @return the context, valid until {@link #pop()}
	 */
	public MutableRetryContext pushPooled(String name) {
		ensureCapacity();
		int index = this.depth;
		MutableRetryContext context = this.pool[index];
		if (context == null) {
			context = new MutableRetryContext();
			this.pool[index] = context;
		}
		context.reset(name, (index == 0) ? null : this.active[index - 1]);
		// A pooled context stays in its slot after pop, so in steady state this stores nothing: a reference
		// store into these long-lived arrays costs a GC write barrier on every call.
		if (this.active[index] != context) {
			this.active[index] = context;
		}
		this.depth = index + 1;
		return context;
	}

	/**
	 * Pushes a context owned by someone else (a cached stateful context, an async attempt's context).
	 * @param context the context
	 */
	public void push(RetryContext context) {
		ensureCapacity();
		this.active[this.depth++] = context;
	}

	/** Pops the innermost context: a context owned by someone else is dropped, a pooled one is cleared for reuse. */
	public void pop() {
		int index = --this.depth;
		MutableRetryContext pooled = this.pool[index];
		if (this.active[index] != pooled) {
			this.active[index] = null;
		}
		else {
			pooled.release();
		}
	}

	/**
	 * @param instance an instance's counters
	 * @return this thread's block of them, created on first use
	 */
	public ThreadCounters counters(RetryCounters instance) {
		int id = instance.id;
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

	/** @return the innermost context, or {@code null} */
	public @Nullable RetryContext top() {
		return (this.depth == 0) ? null : this.active[this.depth - 1];
	}

	private void ensureCapacity() {
		if (this.depth == this.active.length) {
			this.active = java.util.Arrays.copyOf(this.active, this.depth * 2);
			this.pool = java.util.Arrays.copyOf(this.pool, this.depth * 2);
		}
	}

}
