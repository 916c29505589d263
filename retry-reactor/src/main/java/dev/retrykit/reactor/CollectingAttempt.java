package dev.retrykit.reactor;

import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;

/**
 * An attempt that takes everything its source emits and completes with what it collected; nothing of
 * it reaches downstream directly (the call emits the accepted outcome), so attempts may run side by
 * side, as a hedging instance's copies do. {@link MonoAttempt} keeps a {@code Mono}'s value,
 * {@link BufferedAttempt} a {@code Flux}'s elements. Thread-safe.
 *
 * @param <T> the element type
 */
abstract class CollectingAttempt<T> extends Attempt<T> {

	CollectingAttempt(CoreSubscriber<? super T> downstream) {
		super(downstream);
	}

	@Override
	final void subscribed(Subscription s) {
		s.request(Long.MAX_VALUE);
	}

	@Override
	public final void onError(Throwable failure) {
		failed(failure);
	}

}
