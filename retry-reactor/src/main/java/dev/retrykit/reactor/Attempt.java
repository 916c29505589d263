package dev.retrykit.reactor;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * One subscription to the source (or to the recovery's publisher), and the future of its outcome that
 * the template waits on: completed by the attempt's terminal signal, with the {@code Mono}'s value, the
 * buffered elements as a {@code List}, or {@code null} for a streaming attempt. Cancelling the future
 * (as the template does when the call is cancelled or the attempt times out) cancels the subscription.
 *
 * <p>A streaming attempt forwards its elements downstream through a gate, so that no two attempts, nor
 * an attempt and the call's terminal signal, ever signal downstream at once: whoever moves on from this
 * attempt {@linkplain #retire retires} it first, and if an element is being forwarded at that moment,
 * the thread forwarding it runs the next step once it is done. Thread-safe.
 *
 * @param <T> the element type
 */
final class Attempt<T> extends CompletableFuture<Object> implements CoreSubscriber<T> {

	private static final int ACTIVE = 0;

	private static final int EMITTING = 1;

	private static final int RETIRING = 2;

	private static final int RETIRED = 3;

	@SuppressWarnings("rawtypes")
	private static final AtomicIntegerFieldUpdater<Attempt> STATE = AtomicIntegerFieldUpdater
		.newUpdater(Attempt.class, "state");

	@SuppressWarnings("rawtypes")
	private static final AtomicReferenceFieldUpdater<Attempt, @Nullable Subscription> UPSTREAM = AtomicReferenceFieldUpdater
		.newUpdater(Attempt.class, Subscription.class, "upstream");

	private final RetryCall<T> call;

	private volatile int state;

	private volatile @Nullable Subscription upstream;

	/** Runs once the attempt is retired; written before the state turns {@code RETIRING}. */
	private @Nullable Runnable next;

	/** Elements forwarded downstream; written only by the thread forwarding them. */
	private long produced;

	private @Nullable Object value;

	private @Nullable List<T> elements;

	Attempt(RetryCall<T> call) {
		this.call = call;
	}

	@Override
	public Context currentContext() {
		// The subscriber's Context, for every attempt: what Reactor users keep there must reach the source.
		return this.call.actual.currentContext();
	}

	@Override
	public void onSubscribe(Subscription s) {
		if (Operators.setOnce(UPSTREAM, this, s)) {
			this.call.attemptSubscribed(s);
		}
	}

	@Override
	public void onNext(T t) {
		int mode = this.call.mode;
		if (mode == RetryCall.STREAMING) {
			if (!STATE.compareAndSet(this, ACTIVE, EMITTING)) {
				Operators.onNextDropped(t, currentContext());
				return;
			}
			try {
				if (isDone() || this.call.isCancelled()) {
					// Cancelled (timed out, or the call cancelled): nothing of it goes downstream any more.
					Operators.onDiscard(t, currentContext());
				}
				else {
					this.produced++;
					this.call.actual.onNext(t);
				}
			}
			finally {
				// Also when downstream throws: a gate left shut would hold back the call's next step forever.
				if (!STATE.compareAndSet(this, EMITTING, ACTIVE)) {
					retired();
				}
			}
		}
		else if (this.state == ACTIVE) {
			if (mode == RetryCall.SINGLE) {
				this.value = t;
			}
			else {
				List<T> buffer = this.elements;
				if (buffer == null) {
					buffer = new ArrayList<>();
					this.elements = buffer;
				}
				buffer.add(t);
			}
		}
		else {
			Operators.onNextDropped(t, currentContext());
		}
	}

	@Override
	public void onError(Throwable failure) {
		if (STATE.compareAndSet(this, ACTIVE, RETIRED)) {
			completeExceptionally(failure);
		}
		else if (!isDone()) {
			Operators.onErrorDropped(failure, currentContext());
		}
	}

	@Override
	public void onComplete() {
		if (STATE.compareAndSet(this, ACTIVE, RETIRED)) {
			complete(result());
		}
	}

	private @Nullable Object result() {
		int mode = this.call.mode;
		if (mode == RetryCall.SINGLE) {
			return this.value;
		}
		if (mode == RetryCall.BUFFERED) {
			List<T> buffer = this.elements;
			return (buffer != null) ? Collections.unmodifiableList(buffer) : List.of();
		}
		return null;
	}

	/** @return the elements this attempt forwarded downstream; read once it is retired */
	long produced() {
		return this.produced;
	}

	/**
	 * Moves on from this attempt: cancels its subscription unless it has ended, drops whatever it
	 * signals from now on, and runs {@code then} once no element of it is being forwarded downstream
	 * (at once, or on the thread forwarding one, when it is done).
	 * @param then the next step: the next attempt's subscription, or the call's terminal signal
	 */
	void retire(Runnable then) {
		this.next = then;
		for (;;) {
			int current = this.state;
			if (current == ACTIVE) {
				if (STATE.compareAndSet(this, ACTIVE, RETIRED)) {
					Operators.terminate(UPSTREAM, this);
					then.run();
					return;
				}
			}
			else if (current == EMITTING) {
				if (STATE.compareAndSet(this, EMITTING, RETIRING)) {
					Operators.terminate(UPSTREAM, this);
					return;
				}
			}
			else {
				then.run();
				return;
			}
		}
	}

	private void retired() {
		this.state = RETIRED;
		Runnable then = this.next;
		this.next = null;
		if (then != null) {
			then.run();
		}
	}

	/**
	 * Cancels the subscription (or the one to come), leaving this future as it is: downstream cancelled
	 * the call, and the template learns it from the call's future being cancelled, never from an
	 * attempt that ends as if it had failed (which, before the call's future is known, would be retried).
	 */
	void dispose() {
		Operators.terminate(UPSTREAM, this);
	}

	/**
	 * Cancels the subscription (or the one to come) and this future.
	 * @param mayInterruptIfRunning ignored: a subscription is cancelled, never interrupted
	 * @return whether this future was cancelled by this call
	 */
	@Override
	public boolean cancel(boolean mayInterruptIfRunning) {
		Operators.terminate(UPSTREAM, this);
		return super.cancel(mayInterruptIfRunning);
	}

}
