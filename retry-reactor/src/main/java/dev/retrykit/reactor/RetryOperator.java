package dev.retrykit.reactor;

import java.util.Objects;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import dev.retrykit.RetryCallDescriber;
import dev.retrykit.RetryTemplate;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Retries a {@link Mono} or a {@link Flux} with a {@link RetryTemplate}, natively in Reactor:
 * <pre>{@code
 * Mono<Stock> stock = webClient.get().uri("/stock/{sku}", sku).retrieve().bodyToMono(Stock.class)
 *     .transformDeferred(RetryOperator.of(inventory));
 * Flux<Event> events = client.events().transformDeferred(RetryOperator.of(inventory));
 * }</pre>
 *
 * <p>Each attempt is one subscription to the source, made with the downstream subscriber's
 * {@code Context} (so a security context, a tracing observation or an MDC bridge kept in the
 * {@code Context} reaches every attempt), to which the attempt's own {@link dev.retrykit.context.RetryContext}
 * is added under the key {@code RetryContext.class}: a source knows which attempt (or hedged copy) it is
 * without reading a thread-local ({@code Mono.deferContextual(view -> call(view.get(RetryContext.class)
 * .getRetryCount() + 1))}). Read it while the source subscribes, as the attempt's context is valid while the
 * attempt runs; the recovery's subscription has none. Its terminal signal is the attempt's outcome, which the
 * template judges as for any {@link RetryTemplate#executeAsync asynchronous call}: classification,
 * retry on result, backoff, {@code max-duration}, {@code attempt-timeout}, budget, circuit breaker,
 * counters, events, listeners and recovery. The first attempt subscribes on the subscribing thread;
 * delays run on the template's scheduler (no thread waits), and a retry subscribes on the thread that
 * runs it. Cancelling downstream cancels the call: the pending retry never runs, and the attempt in
 * flight is cancelled.
 *
 * <p>Emission:
 * <ul>
 * <li>A {@code Mono}'s value is emitted once the template accepts it, so a value rejected by the
 * retry-on-result predicate is never emitted; the predicate sees the value, or {@code null} for an
 * empty {@code Mono}.</li>
 * <li>A {@code Flux} streams by default: elements go downstream as they arrive, under the downstream's
 * backpressure (its outstanding demand carries over to the next attempt). As with Reactor's
 * {@code retryWhen}, <b>elements emitted before a failure are emitted again by the retry</b> (the
 * retry is a new subscription to the source). The retry-on-result predicate sees {@code null} for a
 * streaming attempt: its elements are already downstream.</li>
 * <li>{@link #allOrNothing()} buffers each {@code Flux} attempt and emits its elements only once the
 * call succeeds, so downstream never sees a failed attempt's elements; the predicate sees the
 * attempt's elements as a {@code List}. Memory grows with the stream: for finite ones.</li>
 * </ul>
 * An {@code attempt-timeout} bounds a whole attempt, from its subscription to its terminal signal: a
 * stream that lasts longer is cancelled there and retried (use Reactor's {@code timeout} for a bound
 * on the gap between elements).
 *
 * <p>Deadlines: a call runs under the {@link dev.retrykit.Deadline} that the subscriber's {@code Context}
 * holds under the key {@code Deadline.class} ({@code mono.contextWrite(Context.of(Deadline.class,
 * Deadline.after(Duration.ofSeconds(2))))}), else under the one current on the subscribing thread; when
 * both are there, the sooner wins. Under it the template starts no retry, backoff or hedged copy that
 * would end after it (no resubscription to the source), each attempt's timeout shrinks to the time left,
 * and each attempt subscribes with the deadline current on its thread.
 *
 * <p>Elements of the source, of one attempt or the next, and the call's terminal signal never reach
 * downstream concurrently, also when an attempt that timed out is still emitting as the next one starts.
 *
 * <p>Hedging: on an instance whose {@linkplain dev.retrykit.RetryConfig#isHedging() hedging} is enabled,
 * a {@code Mono}'s attempts are copies that race instead of following one another. Each copy is a new
 * subscription to the source, made with the subscriber's {@code Context}; copy i+1 subscribes the hedging
 * delay after copy i did (on the scheduler's executor, never on its timer thread), or at once when a copy
 * fails with a retryable failure. The first value the template accepts is emitted (an empty copy counts
 * as a {@code null} result, so it wins as an empty {@code Mono} unless retry-on-result rejects
 * {@code null}); every other copy's subscription is cancelled and nothing it signals afterwards reaches
 * downstream. A non-retryable failure ends the call and cancels the copies in flight; when every copy
 * failed, the call ends with the last failure or its recovery. Cancelling downstream cancels every copy
 * in flight, and no copy starts after it. Budget, circuit breaker, counters and events are the template's
 * as for any hedged call. A {@code Flux} cannot be hedged (two copies' elements cannot be raced):
 * {@link #apply} refuses it on a hedging instance, and a {@code Flux} assembled before hedging was
 * switched on by a live change fails with an {@link IllegalStateException} when subscribed.
 *
 * <p>Immutable and thread-safe; one operator can serve any number of publishers and subscriptions.
 *
 * @param <T> the element type
 */
public final class RetryOperator<T> implements UnaryOperator<Publisher<T>> {

	private final RetryTemplate template;

	private final boolean allOrNothing;

	private final @Nullable Function<? super @Nullable Throwable, ? extends Publisher<? extends T>> recovery;

	private final @Nullable RetryCallDescriber describer;

	private RetryOperator(RetryTemplate template, boolean allOrNothing,
			@Nullable Function<? super @Nullable Throwable, ? extends Publisher<? extends T>> recovery,
			@Nullable RetryCallDescriber describer) {
		this.template = template;
		this.allOrNothing = allOrNothing;
		this.recovery = recovery;
		this.describer = describer;
	}

	/**
	 * An operator that retries with {@code template}, streaming a {@code Flux}, without recovery.
	 * @param template the instance that decides
	 * @param <T> the element type
	 * @return the operator
	 * @throws NullPointerException if {@code template} is {@code null}
	 */
	public static <T> RetryOperator<T> of(RetryTemplate template) {
		return new RetryOperator<>(Objects.requireNonNull(template, "template must not be null"), false, null, null);
	}

	/**
	 * This operator, but a {@code Flux} attempt is buffered and its elements are emitted only once the
	 * call succeeds (or its recovery completes), so no element of a failed attempt reaches downstream.
	 * The buffer holds one attempt's elements: use it for finite streams. No effect on a {@code Mono},
	 * whose value is always emitted only on success.
	 * @return a new operator
	 */
	public RetryOperator<T> allOrNothing() {
		return new RetryOperator<>(this.template, true, this.recovery, this.describer);
	}

	/**
	 * This operator, with a fallback for when the call ends without success. The function gets the
	 * failure the call ended with: the last failure, a {@link dev.retrykit.circuit.CircuitOpenException}
	 * when the circuit rejected an attempt, or {@code null} when retries on a result were exhausted. Its
	 * publisher is subscribed like an attempt (with the subscriber's {@code Context}; streamed, or
	 * buffered in {@linkplain #allOrNothing() all-or-nothing} mode; for a {@code Mono}, its first
	 * element); the call ends with its outcome and counts as recovered when it succeeds. A function that
	 * throws or returns {@code null} ends the call with that error.
	 * @param recovery the fallback
	 * @return a new operator
	 * @throws NullPointerException if {@code recovery} is {@code null}
	 */
	public RetryOperator<T> withRecovery(
			Function<? super @Nullable Throwable, ? extends Publisher<? extends T>> recovery) {
		return new RetryOperator<>(this.template, this.allOrNothing,
				Objects.requireNonNull(recovery, "recovery must not be null"), this.describer);
	}

	/**
	 * This operator, with a describer that tells the listeners of each call (each subscription) what it is
	 * about before they hear of it, as a {@link RetryCallDescriber} operation of {@link RetryTemplate#executeAsync}
	 * does: for instance the intercepted method call of a {@code @Retryable} method returning a {@code Mono}.
	 * @param describer describes each call; called once per subscription, on the subscribing thread
	 * @return a new operator
	 * @throws NullPointerException if {@code describer} is {@code null}
	 */
	public RetryOperator<T> describedBy(RetryCallDescriber describer) {
		return new RetryOperator<>(this.template, this.allOrNothing, this.recovery,
				Objects.requireNonNull(describer, "describer must not be null"));
	}

	/**
	 * Retries {@code source}: a {@code Mono} gives a {@code Mono}, any other publisher a {@code Flux}.
	 * Nothing happens until subscription; each subscription is a call of its own.
	 * @param source the publisher, subscribed once per attempt (per copy on a hedging instance)
	 * @return the retried publisher
	 * @throws IllegalArgumentException if {@code source} is not a {@code Mono} and the template hedges
	 */
	@Override
	public Publisher<T> apply(Publisher<T> source) {
		Objects.requireNonNull(source, "source must not be null");
		if (source instanceof Mono<T> mono) {
			return RetryMono.create(mono, this);
		}
		if (this.template.getConfig().isHedging()) {
			throw new IllegalArgumentException(fluxRefused());
		}
		return RetryFlux.create(source, this);
	}

	/** {@return why a {@code Flux} is refused by a hedging instance, and what to do instead} */
	String fluxRefused() {
		return "Retry '" + this.template.getName() + "' hedges, and a Flux cannot be hedged: the elements of two "
				+ "copies of a stream cannot be raced. Hedge a Mono (e.g. the Flux's collectList()), or retry the "
				+ "Flux with an instance whose hedging is not enabled.";
	}

	RetryTemplate template() {
		return this.template;
	}

	@Nullable RetryCallDescriber describer() {
		return this.describer;
	}

	boolean isAllOrNothing() {
		return this.allOrNothing;
	}

	@Nullable Function<? super @Nullable Throwable, ? extends Publisher<? extends T>> recovery() {
		return this.recovery;
	}

	@Override
	public String toString() {
		return "RetryOperator[" + this.template.getName() + (this.allOrNothing ? ", all-or-nothing" : "")
				+ ((this.recovery != null) ? ", with recovery" : "") + "]";
	}

}
