package dev.retrykit.reactor;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

/**
 * The call of a retried {@code Mono}, and its downstream {@link Subscription}: emits the accepted value
 * once the call succeeded and downstream requested it (an empty {@code Mono} completes, a failure is
 * signalled at once). Its attempts never signal downstream, so they may run side by side (the copies of a
 * hedging instance). Thread-safe.
 *
 * @param <T> the value type
 */
final class MonoCall<T> extends RetryCall<T, MonoAttempt<T>> implements Subscription {

	/** Neither a request nor the value yet. */
	private static final int EMPTY = 0;

	/** Downstream requested, the value is not there yet. */
	private static final int REQUESTED = 1;

	/** The value is there, downstream has not requested it yet. */
	private static final int READY = 2;

	/** The value was emitted, or downstream cancelled, or the call ended without a value. */
	private static final int DONE = 3;

	@SuppressWarnings("rawtypes")
	private static final AtomicIntegerFieldUpdater<MonoCall> STATE = AtomicIntegerFieldUpdater
		.newUpdater(MonoCall.class, "state");

	private volatile int state;

	/** Written before the state turns {@code READY}. */
	private @Nullable T value;

	private MonoCall(CoreSubscriber<? super T> actual, Mono<T> source, RetryOperator<T> operator) {
		super(actual, source, operator);
	}

	/** Subscribes {@code actual} and starts the call: its first attempt subscribes on this thread. */
	static <T> void start(CoreSubscriber<? super T> actual, Mono<T> source, RetryOperator<T> operator) {
		MonoCall<T> call = new MonoCall<>(actual, source, operator);
		actual.onSubscribe(call);
		call.execute();
	}

	@Override
	MonoAttempt<T> newAttempt() {
		return new MonoAttempt<>(this.actual);
	}

	@Override
	Publisher<? extends T> asAttemptPublisher(Publisher<? extends T> fallback) {
		return Mono.from(fallback);
	}

	@Override
	@SuppressWarnings("unchecked")
	void complete(@Nullable Object outcome, @Nullable Throwable failure) {
		if (failure != null || outcome == null) {
			// Neither waits for a request.
			if (STATE.getAndSet(this, DONE) != DONE) {
				if (failure != null) {
					this.actual.onError(failure);
				}
				else {
					this.actual.onComplete();
				}
			}
			return;
		}
		T found = (T) outcome;
		for (;;) {
			int current = this.state;
			if (current == REQUESTED) {
				if (STATE.compareAndSet(this, REQUESTED, DONE)) {
					emit(found);
					return;
				}
			}
			else if (current == EMPTY) {
				this.value = found;
				if (STATE.compareAndSet(this, EMPTY, READY)) {
					return;
				}
			}
			else {
				// Cancelled meanwhile.
				this.value = null;
				Operators.onDiscard(found, this.actual.currentContext());
				return;
			}
		}
	}

	@Override
	public void request(long n) {
		if (!Operators.validate(n)) {
			return;
		}
		for (;;) {
			int current = this.state;
			if (current == READY) {
				if (STATE.compareAndSet(this, READY, DONE)) {
					T found = this.value;
					this.value = null;
					if (found != null) {
						emit(found);
					}
				}
				return;
			}
			if (current != EMPTY || STATE.compareAndSet(this, EMPTY, REQUESTED)) {
				return;
			}
		}
	}

	private void emit(T found) {
		this.actual.onNext(found);
		if (!isCancelled()) {
			this.actual.onComplete();
		}
	}

	/** Cancels the call: the pending retry never runs and every attempt in flight is cancelled. */
	@Override
	public void cancel() {
		if (STATE.getAndSet(this, DONE) == READY) {
			T found = this.value;
			this.value = null;
			if (found != null) {
				Operators.onDiscard(found, this.actual.currentContext());
			}
		}
		cancelCall();
	}

}
