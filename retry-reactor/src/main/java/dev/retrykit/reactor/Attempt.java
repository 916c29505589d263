package dev.retrykit.reactor;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

import dev.retrykit.context.RetryContext;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * One subscription to the source (or to the recovery's publisher), and the future of its outcome that
 * the template waits on, completed by the attempt's terminal signal. Cancelling the future (as the
 * template does when the call is cancelled, the attempt times out, or another hedged copy won) cancels
 * the subscription. What an attempt does with elements is its subclass's: a {@link CollectingAttempt}
 * keeps them ({@link MonoAttempt} a {@code Mono}'s value, {@link BufferedAttempt} a {@code Flux}'s
 * elements), a {@link StreamingAttempt} forwards them downstream. Thread-safe.
 *
 * @param <T> the element type
 */
abstract class Attempt<T> extends CompletableFuture<Object> implements CoreSubscriber<T> {

	@SuppressWarnings("rawtypes")
	private static final AtomicReferenceFieldUpdater<Attempt, @Nullable Subscription> UPSTREAM = AtomicReferenceFieldUpdater
		.newUpdater(Attempt.class, Subscription.class, "upstream");

	private volatile @Nullable Subscription upstream;

	/** The call's subscriber: its {@code Context} is every attempt's. */
	private final CoreSubscriber<? super T> downstream;

	/** The attempt's (or copy's) context, as the template handed it; {@code null} for the recovery's subscription. */
	private @Nullable RetryContext retryContext;

	/** The subscriber's {@code Context} with {@link #retryContext}, made when first asked for. */
	private @Nullable Context withRetryContext;

	Attempt(CoreSubscriber<? super T> downstream) {
		this.downstream = downstream;
	}

	/**
	 * Hands the attempt its context, before it subscribes.
	 * @param context the attempt's context, or {@code null} when there is none (the recovery's subscription)
	 */
	final void handedContext(@Nullable RetryContext context) {
		this.retryContext = context;
	}

	@Override
	public final Context currentContext() {
		// The subscriber's Context, for every attempt: what Reactor users keep there must reach the source; with the
		// attempt's own RetryContext under RetryContext.class, so that the source knows which attempt or copy it is.
		RetryContext retry = this.retryContext;
		if (retry == null) {
			return this.downstream.currentContext();
		}
		Context context = this.withRetryContext;
		if (context == null) {
			// Contexts are immutable (final fields): another thread that makes its own meanwhile makes an equal one.
			context = this.downstream.currentContext().put(RetryContext.class, retry);
			this.withRetryContext = context;
		}
		return context;
	}

	@Override
	public final void onSubscribe(Subscription s) {
		if (Operators.setOnce(UPSTREAM, this, s)) {
			subscribed(s);
		}
	}

	/**
	 * The attempt got its subscription: it requests what it needs.
	 * @param s the subscription to the source
	 */
	abstract void subscribed(Subscription s);

	/** Cancels the subscription (or the one to come); idempotent. */
	final void cancelUpstream() {
		Operators.terminate(UPSTREAM, this);
	}

	/**
	 * Cancels the subscription (or the one to come), leaving this future as it is: downstream cancelled
	 * the call, and the template learns it from the call's future being cancelled, never from an
	 * attempt that ends as if it had failed (which, before the call's future is known, would be retried).
	 */
	final void dispose() {
		cancelUpstream();
	}

	/**
	 * Cancels the subscription (or the one to come) and this future.
	 * @param mayInterruptIfRunning ignored: a subscription is cancelled, never interrupted
	 * @return whether this future was cancelled by this call
	 */
	@Override
	public final boolean cancel(boolean mayInterruptIfRunning) {
		cancelUpstream();
		return super.cancel(mayInterruptIfRunning);
	}

	/**
	 * An element that arrived once this attempt's future was done: discarded when the attempt was cancelled
	 * (it was told to stop, late elements are expected), reported as dropped otherwise (a second signal).
	 */
	final void lateElement(T t) {
		if (isCancelled()) {
			Operators.onDiscard(t, currentContext());
		}
		else {
			Operators.onNextDropped(t, currentContext());
		}
	}

	/** Completes this future exceptionally; a failure after it was done is reported unless it was cancelled. */
	final void failed(Throwable failure) {
		if (!completeExceptionally(failure) && !isCancelled()) {
			Operators.onErrorDropped(failure, currentContext());
		}
	}

}
