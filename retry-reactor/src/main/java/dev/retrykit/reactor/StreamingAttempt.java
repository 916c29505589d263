package dev.retrykit.reactor;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.publisher.Operators;

/**
 * An attempt of a streaming {@code Flux}: forwards its elements downstream as they arrive, and completes
 * with {@code null} (its elements are already downstream).
 *
 * <p>Elements pass a gate, so that no two attempts, nor an attempt and the call's terminal signal, ever
 * signal downstream at once: whoever moves on from this attempt {@linkplain #retire retires} it first,
 * and if an element is being forwarded at that moment, the thread forwarding it runs the next step once
 * it is done. Thread-safe.
 *
 * @param <T> the element type
 */
final class StreamingAttempt<T> extends Attempt<T> {

	private static final int ACTIVE = 0;

	private static final int EMITTING = 1;

	private static final int RETIRING = 2;

	private static final int RETIRED = 3;

	@SuppressWarnings("rawtypes")
	private static final AtomicIntegerFieldUpdater<StreamingAttempt> STATE = AtomicIntegerFieldUpdater
		.newUpdater(StreamingAttempt.class, "state");

	private final StreamingFluxCall<T> call;

	private volatile int state;

	/** Runs once the attempt is retired; written before the state turns {@code RETIRING}. */
	private @Nullable Runnable next;

	/** Elements forwarded downstream; written only by the thread forwarding them. */
	private long produced;

	StreamingAttempt(StreamingFluxCall<T> call) {
		super(call.actual);
		this.call = call;
	}

	@Override
	void subscribed(Subscription s) {
		// Downstream's outstanding demand, carried over from the attempts before.
		this.call.attemptSubscribed(s);
	}

	@Override
	public void onNext(T t) {
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
			complete(null);
		}
	}

	/** {@return the elements this attempt forwarded downstream; read once it is retired} */
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
					cancelUpstream();
					then.run();
					return;
				}
			}
			else if (current == EMITTING) {
				if (STATE.compareAndSet(this, EMITTING, RETIRING)) {
					cancelUpstream();
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

}
