package dev.retrykit;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import dev.retrykit.budget.RetryBudget;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.context.RetryContext;
import dev.retrykit.internal.AsyncRetry;
import dev.retrykit.internal.ContextStack;
import dev.retrykit.internal.RetryRuntime;
import dev.retrykit.internal.StatefulRetry;
import dev.retrykit.internal.SyncRetry;
import dev.retrykit.spi.RetryContextCache;
import org.jspecify.annotations.Nullable;

/**
 * Runs operations with retries: one template per named instance, built once with
 * {@link #builder()} and shared. Thread-safe. A template built on its own keeps its configuration for
 * good; a registry's instance, and the variants that follow it, change configuration only when the
 * registry swaps it (see "Live changes" below).
 *
 * <pre>{@code
 * RetryTemplate inventory = RetryTemplate.builder()
 *     .name("inventory")
 *     .maxAttempts(4)
 *     .backoff(BackoffPolicy.exponential(Duration.ofMillis(100), 2.0, Duration.ofSeconds(2)))
 *     .retryOn(IOException.class)
 *     .build();
 * Stock stock = inventory.execute(context -> client.fetchStock(sku));
 * }</pre>
 *
 * <p>Semantics: a stateless call that fails without recovery rethrows its last exception unchanged.
 * A call with a {@link RecoveryCallback} returns the recovery's result whenever it ends without
 * success, except when it ends with a failure of a {@code notRecoverable} type, with an exception
 * thrown by the user's own decision code (result predicate, classifier, extractor, policy, backoff),
 * or with an {@link InterruptedException} from an attempt (never retried; the thread's interrupt flag
 * is set again). A stateful call ({@link RetryState}) rethrows every failure its state rolls back for,
 * also a non-retryable one and the last allowed attempt's, and continues counting on the next call
 * with the same key; once the context can no longer retry, the next call does not run the operation:
 * it recovers or throws {@link ExhaustedRetryException}. Concurrent stateful calls with one key lose
 * no count.
 *
 * <p>Hedging ({@link RetryConfigBuilder#hedging}): {@code executeAsync} of a hedging instance races
 * copies of the call. So does {@code execute} without a {@link RetryState} when the policy has an
 * {@linkplain dev.retrykit.hedging.HedgingConfig#getExecutor() executor}: every copy runs as a task on
 * it, the calling thread waits for the first acceptable result, the losers' threads are interrupted,
 * and an interrupt of the waiting thread cancels every copy and throws a
 * {@link RetryInterruptedException} (the interrupt flag set again). Without an executor, and for
 * stateful calls, {@code execute} of a hedging instance retries one attempt after another with the
 * backoff, on the calling thread.
 *
 * <p>Deadlines: a call runs under the {@link Deadline} current on the calling thread when it starts
 * (the earlier of it and {@code max-duration} bounds the call): no attempt, backoff or hedged copy
 * starts that would end after it, each async attempt's timeout shrinks to the time left, and its async
 * attempts and hedged copies run with it current wherever they run. A call whose {@code Deadline} has
 * passed already runs no attempt and fails with {@link DeadlineExceededException} (or recovers). An
 * attempt that fails with a {@link DownstreamExhaustedException} is never retried or hedged past.
 *
 * <p>A successful first attempt allocates nothing and does not read the clock unless the instance
 * has a {@code max-duration} or the thread runs under a {@link Deadline}; a zero delay never calls the
 * sleeper.
 *
 * <p>Live changes: {@link RetryRegistry#replace(String, RetryConfig)} (or
 * {@link RetryRegistry#replaceAll(java.util.Map)} for several instances at once) swaps the template's
 * configuration. Each call reads the configuration once, when it starts: a call in flight finishes on
 * the configuration it started with, the next call uses the new one.
 */
public final class RetryTemplate {

	/**
	 * Swapped by {@link RetryRegistry#replace}; read once per call (one volatile read, which costs what a
	 * plain read does on x86 and ARM loads; {@code SuccessfulCallBenchmark} keeps the plain path at ~4 ns).
	 */
	private volatile RetryRuntime runtime;

	/** Wall-clock time of the last {@link RetryRegistry#replace}, or {@code null} before the first. */
	private volatile @Nullable Instant reconfiguredAt;

	/** Variants made with {@link #variant(UnaryOperator)}, re-derived whenever this template is reconfigured. */
	private final List<FollowingVariant> followers = new CopyOnWriteArrayList<>();

	RetryTemplate(RetryRuntime runtime) {
		this.runtime = runtime;
	}

	/**
	 * The context of the call in progress on this thread, the innermost one when retries are nested: the
	 * context that the running attempt's {@link RetryCallback} was handed. Prefer the context an operation
	 * is handed ({@link RetryCallback#doWithRetry}) to this
	 * look-up; it serves code that cannot take it as an argument (a listener of another library, a log
	 * pattern).
	 * @return the current context, or {@code null} outside a retried call (and on a thread that an async
	 * attempt's user code handed work to)
	 */
	public static @Nullable RetryContext currentContext() {
		return ContextStack.current();
	}

	/**
	 * {@link RetryContextScope#enter}'s step on the engine's side: makes {@code context} current on this
	 * thread. The assembly is the one seam to the engine's stack of contexts.
	 * @return the token that {@link #exitContext} takes back on this thread
	 */
	static Object enterContext(RetryContext context) {
		ContextStack stack = ContextStack.get();
		stack.push(context);
		return stack;
	}

	/**
	 * {@link RetryContextScope#close}'s step: makes current again what was before the matching
	 * {@link #enterContext}.
	 * @param token what {@link #enterContext} returned
	 * @return {@code false}, doing nothing, when called on another thread than the one that entered
	 */
	static boolean exitContext(Object token) {
		ContextStack stack = ContextStack.get();
		if (stack != token) {
			return false;
		}
		stack.pop();
		return true;
	}

	/** {@link RetryContextScope#capture}'s step: the current context as it can be kept. */
	static @Nullable RetryContext contextToKeep() {
		return ContextStack.get().topToKeep();
	}

	/** {@return a builder with the default configuration} */
	public static RetryTemplateBuilder builder() {
		return new RetryTemplateBuilder();
	}

	/**
	 * Runs a stateless call.
	 * @param callback the operation
	 * @param <T> the result type
	 * @param <E> the checked exception type
	 * @return the operation's result
	 * @throws E the last failure, unchanged, when the call ends without success
	 */
	public <T extends @Nullable Object, E extends Throwable> T execute(RetryCallback<T, E> callback) throws E {
		return SyncRetry.execute(this.runtime, Objects.requireNonNull(callback, "callback must not be null"), null);
	}

	/**
	 * Runs a stateless call with a fallback.
	 * @param callback the operation
	 * @param recovery the fallback, run when the call ends without success
	 * @param <T> the result type
	 * @param <E> the checked exception type
	 * @return the operation's or the recovery's result
	 * @throws E if the recovery throws
	 */
	public <T extends @Nullable Object, E extends Throwable> T execute(RetryCallback<T, E> callback,
			RecoveryCallback<T> recovery) throws E {
		return SyncRetry.execute(this.runtime, Objects.requireNonNull(callback, "callback must not be null"),
				Objects.requireNonNull(recovery, "recovery must not be null"));
	}

	/**
	 * Runs a stateless call whose attempt takes an argument: the same as {@link #execute(RetryCallback)},
	 * for hot paths where the callback would otherwise be a lambda capturing state, allocated per call.
	 * <pre>{@code
	 * Stock stock = inventory.execute((sku, context) -> client.fetchStock(sku), sku);
	 * }</pre>
	 * @param function the operation, called with {@code argument} on every attempt
	 * @param argument the operation's argument
	 * @param <A> the argument type
	 * @param <T> the result type
	 * @param <E> the checked exception type
	 * @return the operation's result
	 * @throws E the last failure, unchanged, when the call ends without success
	 */
	public <A, T extends @Nullable Object, E extends Throwable> T execute(RetryFunction<? super A, T, E> function,
			A argument) throws E {
		return SyncRetry.execute(this.runtime, Objects.requireNonNull(function, "function must not be null"), argument,
				null);
	}

	/**
	 * Runs one attempt of a stateful call.
	 * @param callback the operation
	 * @param state the key of the cached context
	 * @param <T> the result type
	 * @param <E> the checked exception type
	 * @return the operation's result
	 * @throws E the attempt's failure; {@link ExhaustedRetryException} once the retries are exhausted
	 */
	public <T extends @Nullable Object, E extends Throwable> T execute(RetryCallback<T, E> callback, RetryState state)
			throws E {
		return StatefulRetry.execute(this.runtime, Objects.requireNonNull(callback, "callback must not be null"),
				null, Objects.requireNonNull(state, "state must not be null"));
	}

	/**
	 * Runs one attempt of a stateful call with a fallback for when the retries are exhausted.
	 * @param callback the operation
	 * @param recovery the fallback
	 * @param state the key of the cached context
	 * @param <T> the result type
	 * @param <E> the checked exception type
	 * @return the operation's or the recovery's result
	 * @throws E the attempt's failure, while retries remain
	 */
	public <T extends @Nullable Object, E extends Throwable> T execute(RetryCallback<T, E> callback,
			@Nullable RecoveryCallback<T> recovery, RetryState state) throws E {
		return StatefulRetry.execute(this.runtime, Objects.requireNonNull(callback, "callback must not be null"),
				recovery, Objects.requireNonNull(state, "state must not be null"));
	}

	/**
	 * Runs an asynchronous call: the supplier starts one attempt and is called again for each retry.
	 * No thread waits between attempts (delays run on the instance's scheduler); failures are
	 * unwrapped from {@link java.util.concurrent.CompletionException} and
	 * {@link java.util.concurrent.ExecutionException} before classification; {@code attempt-timeout}
	 * bounds each attempt. {@link dev.retrykit.RetryTemplate#currentContext()} is the call's context while the supplier
	 * runs. The supplier may return any stage, a {@link CompletableFuture#minimalCompletionStage()
	 * minimal} one included. Cancelling the returned future cancels the pending retry and the attempt in
	 * flight, whose circuit permit is given back at once. The
	 * future always completes: when the scheduler is stopped with a retry pending, or refuses the
	 * retry, it completes with a {@link java.util.concurrent.RejectedExecutionException} that says so,
	 * the last failure as its cause (no recovery); so it does when the scheduler stops with an attempt's
	 * timeout pending, or refuses it, and that attempt is cancelled; an attempt failing with {@link InterruptedException}
	 * ends the call with it, not retried.
	 * @param supplier starts one attempt
	 * @param <T> the result type
	 * @return a future of the result; on failure it completes with the last failure, unchanged
	 */
	public <T> CompletableFuture<T> executeAsync(Supplier<? extends CompletionStage<T>> supplier) {
		return AsyncRetry.start(this.runtime,
				Objects.requireNonNull(supplier, "supplier must not be null"), null);
	}

	/**
	 * Runs an asynchronous call with a fallback, applied to the failure the call ends with (the last
	 * failure, a {@link dev.retrykit.circuit.CircuitOpenException}, or {@code null} when retries on a
	 * result were exhausted).
	 * @param supplier starts one attempt
	 * @param recovery the fallback
	 * @param <T> the result type
	 * @return a future of the result or the fallback's result
	 */
	public <T> CompletableFuture<T> executeAsync(Supplier<? extends CompletionStage<T>> supplier,
			Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery) {
		return AsyncRetry.start(this.runtime,
				Objects.requireNonNull(supplier, "supplier must not be null"),
				Objects.requireNonNull(recovery, "recovery must not be null"));
	}

	/**
	 * Runs an asynchronous call whose attempts are handed their context, as
	 * {@link #executeAsync(Supplier)} runs one otherwise: the function starts one attempt and is applied
	 * again for each retry, and, when the instance hedges, once per copy, each copy with a context of its own
	 * (its retry count is the copy's number less one; the attribute {@code retry.hedged} is {@code true} in
	 * every copy after the first). The context is valid while the function runs and until the stage it
	 * returns completes.
	 * @param attempt starts one attempt with its context
	 * @param <T> the result type
	 * @return a future of the result; on failure it completes with the last failure, unchanged
	 */
	public <T> CompletableFuture<T> executeAsync(Function<RetryContext, ? extends CompletionStage<T>> attempt) {
		return AsyncRetry.start(this.runtime, handedTheirContext(attempt), null);
	}

	/**
	 * Runs an asynchronous call whose attempts are handed their context, with a fallback applied to the
	 * failure the call ends with, as {@link #executeAsync(Supplier, Function)} does.
	 * @param attempt starts one attempt with its context
	 * @param recovery the fallback
	 * @param <T> the result type
	 * @return a future of the result or the fallback's result
	 */
	public <T> CompletableFuture<T> executeAsync(Function<RetryContext, ? extends CompletionStage<T>> attempt,
			Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery) {
		return AsyncRetry.start(this.runtime, handedTheirContext(attempt),
				Objects.requireNonNull(recovery, "recovery must not be null"));
	}

	/**
	 * The engine calls an attempt's supplier with the attempt's (or copy's) context current on that thread. An
	 * attempt that describes its call stays its describer ({@link RetryCallDescriber}), which the engine asks the
	 * supplier for.
	 */
	private static <T> Supplier<? extends CompletionStage<T>> handedTheirContext(
			Function<RetryContext, ? extends CompletionStage<T>> attempt) {
		Objects.requireNonNull(attempt, "attempt must not be null");
		if (attempt instanceof RetryCallDescriber describer) {
			return new DescribedAttempt<>(attempt, describer);
		}
		return () -> attempt.apply(contextOfAttempt());
	}

	private static RetryContext contextOfAttempt() {
		return Objects.requireNonNull(ContextStack.current(), "an attempt runs in its call's context");
	}

	/** An attempt handed its context that also describes its call. */
	private record DescribedAttempt<T>(Function<RetryContext, ? extends CompletionStage<T>> attempt,
			RetryCallDescriber describer) implements Supplier<CompletionStage<T>>, RetryCallDescriber {

		@Override
		public CompletionStage<T> get() {
			return this.attempt.apply(contextOfAttempt());
		}

		@Override
		public void describe(RetryContext context) {
			this.describer.describe(context);
		}

	}

	/**
	 * A template with another configuration that is otherwise this same instance: same name, metrics
	 * and recent events, listeners, sleeper, clock, scheduler, context cache, circuit breaker and budget
	 * (the breaker and budget settings of {@code config} are not used). For per-call-site settings,
	 * such as the inline attributes of an annotation, whose calls should still count as the instance's.
	 * @param config the configuration, typically built from {@code RetryConfig.builder(getConfig())}
	 * @return the variant
	 */
	public RetryTemplate variant(RetryConfig config) {
		return new RetryTemplate(this.runtime.variant(Objects.requireNonNull(config, "config must not be null")));
	}

	/**
	 * A variant, as {@link #variant(RetryConfig)}, whose configuration is derived from this template's and
	 * follows it: when {@link RetryRegistry#replace} changes this template's configuration, the variant's
	 * is derived again from the new one. The variant is kept for as long as this template, so make it once
	 * per call site (as the Spring aspect does per method), not per call.
	 * @param derivation makes the variant's configuration from this template's; called now and on every
	 * reconfiguration; returning its argument makes the variant behave as this template
	 * @return the variant
	 * @throws RuntimeException what {@code derivation} throws
	 */
	public RetryTemplate variant(UnaryOperator<RetryConfig> derivation) {
		Objects.requireNonNull(derivation, "derivation must not be null");
		RetryTemplate variant = new RetryTemplate(derive(this.runtime, derivation, null));
		this.followers.add(new FollowingVariant(variant, derivation, null));
		return variant;
	}

	/**
	 * A variant, as {@link #variant(UnaryOperator)} with this template's configuration, whose calls are told to
	 * {@code listeners} instead of the instance's: for listeners chosen per call site, such as a method's
	 * {@code @Retryable(listeners = ...)}. The listeners are called as the instance's would be, so one that
	 * throws is counted in the instance's {@link RetryMetrics#getListenerFailures()} and logged, and the call
	 * goes on. The variant follows this template's live changes and is kept as long as this template: make it
	 * once per call site, not per call.
	 * @param listeners the listeners, in the order they are told; empty for none
	 * @return the variant
	 * @throws NullPointerException if {@code listeners} is or holds {@code null}
	 */
	public RetryTemplate withListeners(List<? extends RetryListener> listeners) {
		RetryListener[] chosen = List.copyOf(Objects.requireNonNull(listeners, "listeners must not be null"))
			.toArray(new RetryListener[0]);
		RetryRuntime current = this.runtime;
		RetryTemplate variant = new RetryTemplate(current.variant(current.config(), chosen));
		this.followers.add(new FollowingVariant(variant, UnaryOperator.identity(), chosen));
		return variant;
	}

	/** {@return when {@link RetryRegistry#replace} last changed this instance, empty before the first change} */
	public Optional<Instant> getReconfiguredAt() {
		return Optional.ofNullable(this.reconfiguredAt);
	}

	/**
	 * Prepares a reconfiguration: derives every following variant's runtime from {@code next} first, so
	 * that a derivation that throws changes nothing.
	 * @param next the template's new runtime
	 * @param at the wall-clock time of the change
	 * @return what {@link Reconfiguration#apply()} swaps in
	 */
	Reconfiguration prepare(RetryRuntime next, Instant at) {
		List<FollowingVariant> variants = List.copyOf(this.followers);
		Reconfiguration[] derived = new Reconfiguration[variants.size()];
		for (int i = 0; i < derived.length; i++) {
			FollowingVariant following = variants.get(i);
			// A variant of a variant (a method's listeners on its inline settings) follows its own base.
			derived[i] = following.variant().prepare(derive(next, following.derivation(), following.listeners()), at);
		}
		return () -> {
			// The variants first: a call on a variant never runs on a newer config than its base's.
			for (Reconfiguration variant : derived) {
				variant.apply();
			}
			this.runtime = next;
			this.reconfiguredAt = at;
		};
	}

	private static RetryRuntime derive(RetryRuntime base, UnaryOperator<RetryConfig> derivation,
			RetryListener @Nullable [] listeners) {
		RetryConfig config = derivation.apply(base.config());
		if (listeners != null) {
			return base.variant((config != null) ? config : base.config(), listeners);
		}
		return (config == null || config == base.config()) ? base : base.variant(config);
	}

	/** A prepared reconfiguration of one template and its following variants. */
	@FunctionalInterface
	interface Reconfiguration {

		/** Swaps the new runtimes in. */
		void apply();

	}

	/** A following variant: how its configuration is derived, and its own listeners ({@code null}: the instance's). */
	private record FollowingVariant(RetryTemplate variant, UnaryOperator<RetryConfig> derivation,
			RetryListener @Nullable [] listeners) {
	}

	/** {@return the instance name} */
	public String getName() {
		return this.runtime.name();
	}

	/** {@return the effective configuration} */
	public RetryConfig getConfig() {
		return this.runtime.config();
	}

	/** {@return the instance's counters and recent events} */
	public RetryMetrics getMetrics() {
		return this.runtime.metrics();
	}

	/** {@return the instance's circuit breaker, or {@code null} when it has none} */
	public @Nullable CircuitBreaker getCircuitBreaker() {
		return this.runtime.circuitBreaker();
	}

	/** {@return the instance's retry budget (possibly shared), or {@code null} when it has none} */
	public @Nullable RetryBudget getBudget() {
		return this.runtime.budget();
	}

	/**
	 * {@return the delay after which a hedged call starts its next copy now (the adaptive estimate, or the
	 * fixed delay), or {@code null} when the instance does not hedge}
	 */
	public java.time.@Nullable Duration getHedgingDelay() {
		long nanos = this.runtime.hedgingDelayNanos();
		return (nanos < 0) ? null : java.time.Duration.ofNanos(nanos);
	}

	/** {@return the stateful-retry context cache} */
	public RetryContextCache getContextCache() {
		return this.runtime.cache();
	}

	RetryRuntime runtime() {
		return this.runtime;
	}

	@Override
	public String toString() {
		return "RetryTemplate[name=" + getName() + ", " + getConfig() + "]";
	}

}
