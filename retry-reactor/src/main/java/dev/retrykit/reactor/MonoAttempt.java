package dev.retrykit.reactor;

import org.jspecify.annotations.Nullable;
import reactor.core.CoreSubscriber;

/**
 * An attempt of a {@code Mono}: completes with its value, or {@code null} when it is empty. Nothing of it
 * reaches downstream directly (the call emits the accepted value), so attempts may run side by side, as a
 * hedging instance's copies do. Thread-safe.
 *
 * @param <T> the value type
 */
final class MonoAttempt<T> extends CollectingAttempt<T> {

	/** Written by the signalling thread before it completes this future, which publishes it. */
	private @Nullable T value;

	MonoAttempt(CoreSubscriber<? super T> downstream) {
		super(downstream);
	}

	@Override
	public void onNext(T t) {
		if (isDone()) {
			lateElement(t);
		}
		else {
			this.value = t;
		}
	}

	@Override
	public void onComplete() {
		complete(this.value);
	}

}
