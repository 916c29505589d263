package dev.retrykit.reactor;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Operators;

/**
 * The call of a streaming {@code Flux}, and its downstream {@link Subscription}: each attempt forwards
 * its elements as they arrive ({@link StreamingAttempt}), downstream's demand carries over from one
 * attempt to the next ({@link SubscriptionArbiter}), and an attempt is retired before the next one
 * subscribes or the call's terminal signal goes out, so that nothing reaches downstream concurrently.
 * Thread-safe.
 *
 * @param <T> the element type
 */
final class StreamingFluxCall<T> extends RetryCall<T, StreamingAttempt<T>> implements Subscription {

	private final SubscriptionArbiter demand = new SubscriptionArbiter();

	private StreamingFluxCall(CoreSubscriber<? super T> actual, Publisher<? extends T> source,
			RetryOperator<T> operator) {
		super(actual, source, operator);
	}

	/** Subscribes {@code actual} and starts the call: its first attempt subscribes on this thread. */
	static <T> void start(CoreSubscriber<? super T> actual, Publisher<? extends T> source, RetryOperator<T> operator) {
		StreamingFluxCall<T> call = new StreamingFluxCall<>(actual, source, operator);
		actual.onSubscribe(call);
		call.execute();
	}

	@Override
	StreamingAttempt<T> newAttempt() {
		return new StreamingAttempt<>(this);
	}

	/** An attempt got its subscription: it gets the outstanding demand. */
	void attemptSubscribed(Subscription s) {
		this.demand.switchTo(s);
	}

	@Override
	void subscribeAfter(@Nullable StreamingAttempt<T> previous, StreamingAttempt<T> attempt,
			Publisher<? extends T> publisher) {
		if (previous == null) {
			subscribeNow(attempt, publisher);
			return;
		}
		previous.retire(() -> {
			this.demand.produced(previous.produced());
			subscribeNow(attempt, publisher);
		});
	}

	@Override
	void complete(@Nullable Object outcome, @Nullable Throwable failure) {
		StreamingAttempt<T> last = currentAttempt();
		if (last == null) {
			terminate(failure);
		}
		else {
			last.retire(() -> terminate(failure));
		}
	}

	/** The call's terminal signal, once the last attempt forwards nothing any more. */
	private void terminate(@Nullable Throwable failure) {
		if (isCancelled()) {
			return;
		}
		if (failure != null) {
			this.actual.onError(failure);
		}
		else {
			this.actual.onComplete();
		}
	}

	@Override
	public void request(long n) {
		if (Operators.validate(n)) {
			this.demand.request(n);
		}
	}

	/** Cancels the call: the pending retry never runs and the attempt in flight is cancelled. */
	@Override
	public void cancel() {
		cancelCall();
	}

}
