package dev.retrykit.reactor;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.retrykit.RetryTemplate;
import dev.retrykit.context.RetryContext;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;

/**
 * A cold {@code Mono} whose every subscription is a {@link Copy} the test answers by hand. It does not
 * stop signalling when cancelled (as a careless source may not), so a test can show that a cancelled
 * copy's late signals never reach downstream.
 */
final class Copies extends Mono<String> {

	private final List<Copy> copies = new CopyOnWriteArrayList<>();

	@Override
	public void subscribe(CoreSubscriber<? super String> actual) {
		RetryContext context = RetryTemplate.currentContext();
		RetryContext handed = actual.currentContext().getOrDefault(RetryContext.class, null);
		Copy copy = new Copy(actual, (context != null) && Boolean.TRUE.equals(context.getAttribute("retry.hedged")),
				actual.currentContext().getOrDefault("user", "<none>"),
				(handed != null) ? "retry count " + handed.getRetryCount() + ", hedged " + handed.getAttribute("retry.hedged")
						: "none");
		this.copies.add(copy);
		actual.onSubscribe(copy);
	}

	/** {@return how many subscriptions there were} */
	int subscriptions() {
		return this.copies.size();
	}

	/** {@return the n-th subscription, from 1} */
	Copy copy(int n) {
		return this.copies.get(n - 1);
	}

	/** {@return how many subscriptions were neither answered nor cancelled} */
	long open() {
		return this.copies.stream().filter(copy -> !copy.answered && copy.cancels == 0).count();
	}

	/** One subscription. */
	static final class Copy implements Subscription {

		private final CoreSubscriber<? super String> subscriber;

		/** Whether {@code RetryTemplate.currentContext()} marked it as a hedge when it was subscribed. */
		final boolean hedged;

		/** The subscriber's Context's {@code user}, as it reached this subscription. */
		final @Nullable Object user;

		/** The {@code RetryContext} the subscriber's Context handed it, as its retry count and hedge mark. */
		final String handed;

		volatile int cancels;

		volatile boolean answered;

		Copy(CoreSubscriber<? super String> subscriber, boolean hedged, @Nullable Object user, String handed) {
			this.subscriber = subscriber;
			this.hedged = hedged;
			this.user = user;
			this.handed = handed;
		}

		void succeed(String value) {
			this.answered = true;
			this.subscriber.onNext(value);
			this.subscriber.onComplete();
		}

		void complete() {
			this.answered = true;
			this.subscriber.onComplete();
		}

		void fail(Throwable failure) {
			this.answered = true;
			this.subscriber.onError(failure);
		}

		@Override
		public void request(long n) {
		}

		@Override
		public void cancel() {
			this.cancels++;
		}

	}

}
