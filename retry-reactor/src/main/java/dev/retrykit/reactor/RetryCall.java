package dev.retrykit.reactor;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.retrykit.Deadline;
import dev.retrykit.RetryCallDescriber;
import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryTemplate;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Operators;

/**
 * One subscription to a retried publisher, as the template sees it: one call of
 * {@link RetryTemplate#executeAsync}, which asks it for each attempt ({@link #get()}: a new
 * {@link Attempt}, subscribed to the source) and hands it the call's outcome ({@link #apply}). How the
 * outcome reaches downstream is the job of the subclass, which is also the downstream's
 * {@code Subscription}: {@link MonoCall} emits a {@code Mono}'s value, {@link BufferedFluxCall} a
 * buffered attempt's elements, {@link StreamingFluxCall} forwards elements as they arrive.
 *
 * <p>A subclass rather than a second object, so that a call allocates this object, one attempt per
 * attempt, and nothing else when its first attempt succeeds at once ({@code ReactorRetryBenchmark}).
 * Being the template's supplier and outcome handler is one job, driving the call; the template needs
 * both callbacks, and as methods of this object they cost no allocation. Thread-safe.
 *
 * @param <T> the element type
 * @param <A> the kind of attempt
 */
abstract class RetryCall<T, A extends Attempt<T>> implements Supplier<CompletionStage<Object>>,
		BiFunction<@Nullable Object, @Nullable Throwable, @Nullable Void>, RetryCallDescriber {

	final CoreSubscriber<? super T> actual;

	private final Publisher<? extends T> source;

	private final RetryOperator<T> operator;

	/** The latest attempt (or the recovery's subscription). */
	private volatile @Nullable A current;

	private volatile @Nullable CompletableFuture<Object> call;

	private volatile boolean cancelled;

	RetryCall(CoreSubscriber<? super T> actual, Publisher<? extends T> source, RetryOperator<T> operator) {
		this.actual = actual;
		this.source = source;
		this.operator = operator;
	}

	/**
	 * Starts the call: its first attempt subscribes to the source on this thread. The call runs under the
	 * {@link Deadline} in the subscriber's {@code Context} under the key {@code Deadline.class}, if any
	 * (the sooner of it and the one current on this thread), which the template carries to every attempt.
	 */
	final void execute() {
		if (this.cancelled) {
			return;
		}
		RetryTemplate template = this.operator.template();
		CompletableFuture<Object> future;
		Deadline deadline = this.actual.currentContext().getOrDefault(Deadline.class, null);
		Deadline.Scope scope = (deadline != null) ? deadline.enter() : null;
		try {
			future = (this.operator.recovery() != null) ? template.executeAsync(this, this::recover)
					: template.executeAsync(this);
		}
		catch (Throwable ex) {
			apply(null, ex);
			return;
		}
		finally {
			if (scope != null) {
				scope.close();
			}
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

	/** Lets the operator's describer, if it has one, tell the call's listeners what the call is about. */
	@Override
	public final void describe(RetryContext context) {
		RetryCallDescriber describer = this.operator.describer();
		if (describer != null) {
			describer.describe(context);
		}
	}

	/**
	 * Starts one attempt: a new subscription to the source; the template calls this per attempt (per copy), with
	 * the attempt's context current, which the attempt hands its source in the subscription's {@code Context}.
	 */
	@Override
	public final CompletionStage<Object> get() {
		A attempt = newAttempt();
		attempt.handedContext(RetryTemplate.currentContext());
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
			Function<? super @Nullable Throwable, ? extends Publisher<? extends T>> recovery = this.operator.recovery();
			fallback = (recovery != null) ? recovery.apply(ended) : null;
			if (fallback == null) {
				throw new NullPointerException("The recovery of retry '" + this.operator.template().getName()
						+ "' returned null instead of a publisher");
			}
		}
		catch (Throwable ex) {
			return CompletableFuture.failedFuture(ex);
		}
		A attempt = newAttempt();
		subscribe(attempt, asAttemptPublisher(fallback));
		return attempt;
	}

	private void subscribe(A attempt, Publisher<? extends T> publisher) {
		A previous = this.current;
		this.current = attempt;
		if (this.cancelled) {
			// cancel() may have read the previous attempt: this one is disposed here instead. Its future
			// stays pending until the call's future is cancelled: a cancelled attempt would count as a
			// failed one, retried at once without a delay (for ever with unlimited attempts).
			attempt.dispose();
			return;
		}
		subscribeAfter(previous, attempt, publisher);
	}

	/**
	 * Subscribes {@code attempt} to {@code publisher}; at once, unless the subclass must first retire the
	 * previous attempt. The attempts of a call whose signals never reach downstream directly may run side
	 * by side: that is what lets a hedging instance race a {@code Mono}'s copies.
	 * @param previous the attempt before, or {@code null} for the first
	 * @param attempt the new attempt
	 * @param publisher the source, or the recovery's publisher
	 */
	void subscribeAfter(@Nullable A previous, A attempt, Publisher<? extends T> publisher) {
		subscribeNow(attempt, publisher);
	}

	static <T> void subscribeNow(Attempt<T> attempt, Publisher<? extends T> publisher) {
		try {
			publisher.subscribe(attempt);
		}
		catch (Throwable ex) {
			attempt.onError(Operators.onOperatorError(ex, attempt.currentContext()));
		}
	}

	/** The call's outcome, from the template: handed to {@link #complete} unless downstream cancelled. */
	@Override
	public final @Nullable Void apply(@Nullable Object value, @Nullable Throwable ended) {
		if (!this.cancelled) {
			complete(value, ended);
		}
		return null;
	}

	/** {@return whether downstream cancelled} */
	final boolean isCancelled() {
		return this.cancelled;
	}

	/** {@return the latest attempt, or {@code null} before the first} */
	final @Nullable A currentAttempt() {
		return this.current;
	}

	/**
	 * Cancels the call once: the pending retry never runs and the attempts in flight are cancelled.
	 * @return whether this was the first cancellation
	 */
	final boolean cancelCall() {
		if (this.cancelled) {
			return false;
		}
		this.cancelled = true;
		CompletableFuture<Object> future = this.call;
		if (future != null) {
			future.cancel(false);
		}
		// Also the recovery's subscription, which the template does not hold, and the first attempt's
		// while executeAsync has not returned the call's future yet (see subscribe).
		A attempt = this.current;
		if (attempt != null) {
			attempt.dispose();
		}
		return true;
	}

	/** {@return a new attempt of this call's kind, not yet subscribed} */
	abstract A newAttempt();

	/**
	 * {@return the recovery's publisher as an attempt subscribes to it}
	 * @param fallback what the recovery returned
	 */
	Publisher<? extends T> asAttemptPublisher(Publisher<? extends T> fallback) {
		return fallback;
	}

	/**
	 * Signals the call's outcome downstream.
	 * @param value the accepted attempt's result, as its {@link Attempt} completed with it
	 * @param failure the failure the call ended with, or {@code null} when it succeeded
	 */
	abstract void complete(@Nullable Object value, @Nullable Throwable failure);

}
