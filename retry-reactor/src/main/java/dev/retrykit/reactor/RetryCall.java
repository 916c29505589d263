package dev.retrykit.reactor;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.function.BiFunction;
import java.util.function.Supplier;

import dev.retrykit.RetryTemplate;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

/**
 * One subscription to a retried publisher: one call of {@link RetryTemplate#executeAsync}, whose
 * attempts are subscriptions to the source ({@link Attempt}). The template decides after each attempt
 * and starts the next one (through {@link #get()}); this object is the downstream's
 * {@link Subscription} and emits the call's outcome. Thread-safe.
 *
 * <p>It is the supplier of attempts, the handler of the call's outcome and the step that emits it, so a call allocates this object, one {@link Attempt} per attempt, and nothing
 * else when its first attempt succeeds at once ({@code ReactorRetryBenchmark}).
 *
 * @param <T> the element type
 */
final class RetryCall<T> extends SubscriptionArbiter implements Subscription, Supplier<CompletionStage<Object>>,
		BiFunction<@Nullable Object, @Nullable Throwable, @Nullable Void>, Runnable {

	/** A {@code Mono}: the value is emitted once the call succeeds. */
	static final int SINGLE = 0;

	/** A {@code Flux}, all-or-nothing: the successful attempt's elements are emitted once it ends. */
	static final int BUFFERED = 1;

	/** A {@code Flux}, streaming: elements go downstream as they arrive. */
	static final int STREAMING = 2;

	@SuppressWarnings("rawtypes")
	private static final AtomicIntegerFieldUpdater<RetryCall> EMIT_WIP = AtomicIntegerFieldUpdater
		.newUpdater(RetryCall.class, "emitWip");

	@SuppressWarnings("rawtypes")
	private static final AtomicLongFieldUpdater<RetryCall> EMIT_REQUESTED = AtomicLongFieldUpdater
		.newUpdater(RetryCall.class, "emitRequested");

	final CoreSubscriber<? super T> actual;

	final int mode;

	private final Publisher<? extends T> source;

	private final RetryOperator<T> operator;

	private volatile @Nullable Attempt<T> current;

	private volatile @Nullable CompletableFuture<Object> call;

	private volatile boolean cancelled;

	/** The call's outcome; written before the last attempt is retired, read when it is emitted. */
	private @Nullable Object outcome;

	private @Nullable Throwable failure;

	/** Downstream demand for the outcome's elements ({@code SINGLE} and {@code BUFFERED}). */
	private volatile long emitRequested;

	private volatile int emitWip;

	private volatile boolean emitReady;

	private int emitIndex;

	private boolean emitDone;

	private RetryCall(CoreSubscriber<? super T> actual, Publisher<? extends T> source, RetryOperator<T> operator,
			int mode) {
		this.actual = actual;
		this.source = source;
		this.operator = operator;
		this.mode = mode;
	}

	/**
	 * Subscribes {@code actual} and starts the call: its first attempt subscribes to the source on this
	 * thread.
	 */
	static <T> void start(CoreSubscriber<? super T> actual, Publisher<? extends T> source, RetryOperator<T> operator,
			int mode) {
		RetryCall<T> call = new RetryCall<>(actual, source, operator, mode);
		actual.onSubscribe(call);
		call.execute();
	}

	private void execute() {
		if (this.cancelled) {
			return;
		}
		RetryTemplate template = this.operator.template();
		CompletableFuture<Object> future;
		try {
			future = (this.operator.recovery() != null) ? template.executeAsync(this, this::recover) : template.executeAsync(this);
		}
		catch (Throwable ex) {
			apply(null, ex);
			return;
		}
		this.call = future;
		if (this.cancelled) {
			future.cancel(false);
		}
		else if (future.isDone() && !future.isCompletedExceptionally()) {
			apply(future.getNow(null), null);
		}
		else {
			future.handle(this);
		}
	}

	/** Starts one attempt: a new subscription to the source; the template calls this per attempt. */
	@Override
	public CompletionStage<Object> get() {
		Attempt<T> attempt = new Attempt<>(this);
		subscribe(attempt, this.source);
		return attempt;
	}

	/** The recovery: subscribes to the fallback's publisher as to one more attempt. */
	// The recovery is a Function<? super @Nullable Throwable, ...>: null is a valid argument, but NullAway does not
	// read the nullness of a wildcard's bound yet.
	@SuppressWarnings("NullAway")
	private CompletionStage<Object> recover(@Nullable Throwable ended) {
		Publisher<? extends T> fallback;
		try {
			// The template is given this recovery only when the operator has one.
			fallback = Objects.requireNonNull(this.operator.recovery(), "no recovery").apply(ended);
			if (fallback == null) {
				throw new NullPointerException("The recovery of retry '" + this.operator.template().getName()
						+ "' returned null instead of a publisher");
			}
		}
		catch (Throwable ex) {
			return CompletableFuture.failedFuture(ex);
		}
		Attempt<T> attempt = new Attempt<>(this);
		subscribe(attempt, (this.mode == SINGLE) ? Mono.from(fallback) : fallback);
		return attempt;
	}

	private void subscribe(Attempt<T> attempt, Publisher<? extends T> publisher) {
		Attempt<T> previous = this.current;
		this.current = attempt;
		if (this.cancelled) {
			// cancel() may have read the previous attempt: this one is disposed here instead. Its future
			// stays pending until the call's future is cancelled: a cancelled attempt would count as a
			// failed one, retried at once without a delay (for ever with unlimited attempts).
			attempt.dispose();
			return;
		}
		if (previous == null) {
			subscribeNow(attempt, publisher);
		}
		else {
			previous.retire(() -> {
				arbiterProduced(previous.produced());
				subscribeNow(attempt, publisher);
			});
		}
	}

	private static <T> void subscribeNow(Attempt<T> attempt, Publisher<? extends T> publisher) {
		try {
			publisher.subscribe(attempt);
		}
		catch (Throwable ex) {
			attempt.onError(Operators.onOperatorError(ex, attempt.currentContext()));
		}
	}

	/** @return whether downstream cancelled */
	boolean isCancelled() {
		return this.cancelled;
	}

	/** An attempt got its subscription: it gets the outstanding demand, or all when buffering. */
	void attemptSubscribed(Subscription s) {
		if (this.mode == STREAMING) {
			arbiterSwitch(s);
		}
		else {
			s.request(Long.MAX_VALUE);
		}
	}

	/** The call's outcome: emitted once the last attempt signals nothing any more. */
	@Override
	public @Nullable Void apply(@Nullable Object value, @Nullable Throwable ended) {
		if (this.cancelled) {
			return null;
		}
		this.outcome = value;
		this.failure = ended;
		Attempt<T> last = this.current;
		if (last == null) {
			run();
		}
		else {
			last.retire(this);
		}
		return null;
	}

	/** Emits the outcome; runs once the last attempt is retired. */
	@Override
	public void run() {
		if (this.cancelled) {
			return;
		}
		Throwable ended = this.failure;
		if (ended != null) {
			this.actual.onError(ended);
		}
		else if (this.mode == STREAMING) {
			this.actual.onComplete();
		}
		else {
			this.emitReady = true;
			drainOutcome();
		}
	}

	@Override
	public void request(long n) {
		if (!Operators.validate(n)) {
			return;
		}
		if (this.mode == STREAMING) {
			arbiterRequest(n);
		}
		else {
			Operators.addCap(EMIT_REQUESTED, this, n);
			drainOutcome();
		}
	}

	/** Cancels the call: the pending retry never runs and the attempt in flight is cancelled. */
	@Override
	public void cancel() {
		if (this.cancelled) {
			return;
		}
		this.cancelled = true;
		CompletableFuture<Object> future = this.call;
		if (future != null) {
			future.cancel(false);
		}
		// Also the recovery's subscription, which the template does not hold, and the first attempt's
		// while executeAsync has not returned the call's future yet (see subscribe).
		Attempt<T> attempt = this.current;
		if (attempt != null) {
			attempt.dispose();
		}
		if (this.mode != STREAMING) {
			drainOutcome();
		}
	}

	/** Emits the outcome's elements as downstream requests them, then completes. */
	private void drainOutcome() {
		if (EMIT_WIP.getAndIncrement(this) != 0) {
			return;
		}
		int missed = 1;
		do {
			if (this.emitDone || this.cancelled) {
				this.outcome = null;
				return;
			}
			if (this.emitReady) {
				int size = size();
				long demand = this.emitRequested;
				long emitted = 0;
				int index = this.emitIndex;
				while (emitted != demand && index < size) {
					T element = element(index++);
					emitted++;
					this.actual.onNext(element);
					if (this.cancelled) {
						this.outcome = null;
						return;
					}
				}
				this.emitIndex = index;
				if (index == size) {
					this.emitDone = true;
					this.outcome = null;
					this.actual.onComplete();
					return;
				}
				if (emitted != 0) {
					Operators.produced(EMIT_REQUESTED, this, emitted);
				}
			}
			missed = EMIT_WIP.addAndGet(this, -missed);
		}
		while (missed != 0);
	}

	private int size() {
		Object value = this.outcome;
		if (value == null) {
			return 0;
		}
		return (this.mode == SINGLE) ? 1 : ((List<?>) value).size();
	}

	@SuppressWarnings("unchecked")
	private T element(int index) {
		// Read below size(), which is 0 while there is no outcome.
		Object value = Objects.requireNonNull(this.outcome, "no outcome");
		return (this.mode == SINGLE) ? (T) value : ((List<T>) value).get(index);
	}

}
