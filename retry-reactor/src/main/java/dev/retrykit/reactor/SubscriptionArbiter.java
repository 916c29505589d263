package dev.retrykit.reactor;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.publisher.Operators;

/**
 * The downstream's demand across the subscriptions of successive attempts: what downstream requested
 * and no attempt has delivered yet is requested from the next attempt's subscription, so a retry
 * neither loses demand nor emits more than was requested. Requests, switches and deliveries may come
 * from any thread; they are applied one at a time by whichever thread gets the drain (the others only
 * leave their change for it). Thread-safe.
 *
 * <p>A streaming call's own object ({@link StreamingFluxCall}): a {@code Mono}'s or a buffered
 * {@code Flux}'s call, whose attempts all request everything, does without one.
 */
final class SubscriptionArbiter {

	@SuppressWarnings("rawtypes")
	private static final AtomicIntegerFieldUpdater<SubscriptionArbiter> WIP = AtomicIntegerFieldUpdater
		.newUpdater(SubscriptionArbiter.class, "wip");

	@SuppressWarnings("rawtypes")
	private static final AtomicLongFieldUpdater<SubscriptionArbiter> MISSED_REQUESTED = AtomicLongFieldUpdater
		.newUpdater(SubscriptionArbiter.class, "missedRequested");

	@SuppressWarnings("rawtypes")
	private static final AtomicLongFieldUpdater<SubscriptionArbiter> MISSED_PRODUCED = AtomicLongFieldUpdater
		.newUpdater(SubscriptionArbiter.class, "missedProduced");

	@SuppressWarnings("rawtypes")
	private static final AtomicReferenceFieldUpdater<SubscriptionArbiter, @Nullable Subscription> MISSED_SUBSCRIPTION = AtomicReferenceFieldUpdater
		.newUpdater(SubscriptionArbiter.class, Subscription.class, "missedSubscription");

	private volatile int wip;

	private volatile long missedRequested;

	private volatile long missedProduced;

	private volatile @Nullable Subscription missedSubscription;

	/** Outstanding demand: requested and not delivered by a finished attempt (drain only). */
	private long requested;

	/** The current attempt's subscription (drain only). */
	private @Nullable Subscription upstream;

	/**
	 * Adds downstream demand; forwarded to the current subscription.
	 * @param n the amount, positive
	 */
	void request(long n) {
		Operators.addCap(MISSED_REQUESTED, this, n);
		drain();
	}

	/**
	 * Subtracts what a finished attempt delivered, before the next attempt subscribes.
	 * @param n the elements that attempt forwarded downstream
	 */
	void produced(long n) {
		if (n > 0) {
			Operators.addCap(MISSED_PRODUCED, this, n);
			drain();
		}
	}

	/**
	 * Makes {@code s} the current subscription and requests the outstanding demand from it.
	 * @param s the new attempt's subscription
	 */
	void switchTo(Subscription s) {
		MISSED_SUBSCRIPTION.set(this, s);
		drain();
	}

	private void drain() {
		if (WIP.getAndIncrement(this) != 0) {
			return;
		}
		int missed = 1;
		do {
			long addedDemand = MISSED_REQUESTED.getAndSet(this, 0L);
			long delivered = MISSED_PRODUCED.getAndSet(this, 0L);
			Subscription switched = MISSED_SUBSCRIPTION.getAndSet(this, null);
			long outstanding = this.requested;
			if (outstanding != Long.MAX_VALUE) {
				outstanding = Operators.addCap(outstanding, addedDemand);
				if (outstanding != Long.MAX_VALUE) {
					outstanding = Math.max(0L, outstanding - delivered);
				}
				this.requested = outstanding;
			}
			if (switched != null) {
				this.upstream = switched;
				if (outstanding != 0) {
					switched.request(outstanding);
				}
			}
			else if (addedDemand != 0) {
				Subscription current = this.upstream;
				if (current != null) {
					current.request(addedDemand);
				}
			}
			missed = WIP.addAndGet(this, -missed);
		}
		while (missed != 0);
	}

}
