package dev.retrykit.reactor;

import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Operators;

/**
 * The call of a {@code Flux} retried all-or-nothing, and its downstream {@link Subscription}: once the
 * call succeeded, emits the successful attempt's buffered elements as downstream requests them, then
 * completes; a failure is signalled at once. Thread-safe.
 *
 * @param <T> the element type
 */
final class BufferedFluxCall<T> extends RetryCall<T, BufferedAttempt<T>> implements Subscription {

	@SuppressWarnings("rawtypes")
	private static final AtomicIntegerFieldUpdater<BufferedFluxCall> WIP = AtomicIntegerFieldUpdater
		.newUpdater(BufferedFluxCall.class, "wip");

	@SuppressWarnings("rawtypes")
	private static final AtomicLongFieldUpdater<BufferedFluxCall> REQUESTED = AtomicLongFieldUpdater
		.newUpdater(BufferedFluxCall.class, "requested");

	/** The successful attempt's elements; written before {@link #ready}, dropped once emitted or cancelled. */
	private @Nullable List<T> elements;

	private volatile boolean ready;

	private volatile long requested;

	private volatile int wip;

	/** The next element to emit (drain only). */
	private int index;

	private boolean done;

	private BufferedFluxCall(CoreSubscriber<? super T> actual, Publisher<? extends T> source,
			RetryOperator<T> operator) {
		super(actual, source, operator);
	}

	/** Subscribes {@code actual} and starts the call: its first attempt subscribes on this thread. */
	static <T> void start(CoreSubscriber<? super T> actual, Publisher<? extends T> source, RetryOperator<T> operator) {
		BufferedFluxCall<T> call = new BufferedFluxCall<>(actual, source, operator);
		actual.onSubscribe(call);
		call.execute();
	}

	@Override
	BufferedAttempt<T> newAttempt() {
		return new BufferedAttempt<>(this.actual);
	}

	@Override
	@SuppressWarnings("unchecked")
	void complete(@Nullable Object outcome, @Nullable Throwable failure) {
		if (failure != null) {
			this.actual.onError(failure);
			return;
		}
		// A recovery's publisher is buffered too; null only from a template that completed without an attempt.
		this.elements = (outcome != null) ? (List<T>) outcome : List.of();
		this.ready = true;
		drain();
	}

	@Override
	public void request(long n) {
		if (Operators.validate(n)) {
			Operators.addCap(REQUESTED, this, n);
			drain();
		}
	}

	/** Cancels the call: the pending retry never runs and the attempt in flight is cancelled. */
	@Override
	public void cancel() {
		if (cancelCall()) {
			drain();
		}
	}

	/** Emits the elements as downstream requests them, then completes. */
	private void drain() {
		if (WIP.getAndIncrement(this) != 0) {
			return;
		}
		int missed = 1;
		do {
			if (this.done || isCancelled()) {
				this.elements = null;
				return;
			}
			List<T> buffer = this.elements;
			if (this.ready && buffer != null) {
				long demand = this.requested;
				long emitted = 0;
				int next = this.index;
				int size = buffer.size();
				while (emitted != demand && next < size) {
					T element = buffer.get(next++);
					emitted++;
					this.actual.onNext(element);
					if (isCancelled()) {
						this.elements = null;
						return;
					}
				}
				this.index = next;
				if (next == size) {
					this.done = true;
					this.elements = null;
					this.actual.onComplete();
					return;
				}
				if (emitted != 0) {
					Operators.produced(REQUESTED, this, emitted);
				}
			}
			missed = WIP.addAndGet(this, -missed);
		}
		while (missed != 0);
	}

}
