package dev.retrykit.spring.boot.metrics;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.retrykit.Deadline;
import dev.retrykit.DownstreamExhaustedException;
import dev.retrykit.RetryConfig;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryState;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.circuit.CircuitOpenException;
import dev.retrykit.failback.FailbackExecutor;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class RetryMetricsBinderTests {

	private final VirtualTime time = new VirtualTime();

	// A field, so that the registry (and through it every template) stays strongly reachable: the
	// meters hold their state objects weakly, as they would in an application.
	private final RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time)
		.defaults(RetryConfig.builder().maxAttempts(3).backoff(BackoffPolicy.fixed(Duration.ofMillis(100))).build())
		.instance("inventory", null, (config) -> config.retryOn(IOException.class))
		.instance("payments", null, (config) -> config.maxAttempts(2)
			.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures >= 2").timeout(Duration.ofSeconds(30)).build()))
		.instance("search", null, (config) -> config.budget(RetryBudgetConfig.builder().maxTokens(2).build(), null))
		.instance("audit", null, (config) -> config.failbackCapacity(1))
		.build();

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	RetryMetricsBinderTests() {
		new RetryMetricsBinder(this.registry).bindTo(this.meters);
	}

	@Test
	void countsHedgesByResult() {
		RetryRegistry hedging = RetryRegistry.builder().virtualTime(this.time)
			.instance("lookup", null, (config) -> config.maxAttempts(3)
				.hedging(dev.retrykit.hedging.HedgingConfig.builder().delay(Duration.ofMillis(10)).build()))
			.build();
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		new RetryMetricsBinder(hedging).bindTo(meters);
		java.util.List<java.util.concurrent.CompletableFuture<String>> copies = new java.util.ArrayList<>();
		hedging.template("lookup").executeAsync(() -> {
			java.util.concurrent.CompletableFuture<String> copy = new java.util.concurrent.CompletableFuture<>();
			copies.add(copy);
			return copy;
		});
		this.time.advance(Duration.ofMillis(20));
		copies.get(1).complete("second");

		assertThat(meters.get("retry.hedges").tag("name", "lookup").tag("result", "won").functionCounter().count())
			.isEqualTo(1);
		assertThat(meters.get("retry.hedges").tag("name", "lookup").tag("result", "lost").functionCounter().count())
			.isEqualTo(1);
		assertThat(meters.get("retry.hedges").tag("name", "lookup").tag("result", "cancelled").functionCounter()
			.count()).isZero();
		assertThat(meters.get("retry.hedges").tag("name", "lookup").tag("result", "refused").functionCounter()
			.count()).isZero();
	}

	@Test
	void countsRejectionsByADeadlineAndByAnExhaustedDownstream() {
		RetryTemplate inventory = this.registry.template("inventory");
		assertThat(rejections("inventory", "deadline")).isZero();
		assertThat(rejections("inventory", "downstream_exhausted")).isZero();
		// Attempts at 0 and 100 ms; the third, at 200 ms, would start after the deadline.
		try (Deadline.Scope scope = Deadline.after(Duration.ofMillis(150), this.time).enter()) {
			assertThatExceptionOfType(IOException.class)
				.isThrownBy(() -> inventory.execute((context) -> { throw new IOException("down"); }));
		}
		assertThat(rejections("inventory", "deadline")).isEqualTo(1);
		assertThatExceptionOfType(DownstreamExhaustedException.class).isThrownBy(() -> inventory
			.execute((context) -> { throw new DownstreamExhaustedException("leaf", new IOException("gave up")); }));
		assertThat(rejections("inventory", "downstream_exhausted")).isEqualTo(1);
		assertThat(counter("retry.attempts", "inventory")).isEqualTo(3);
	}

	@Test
	void countsEachCallOutcomeUnderItsKind() throws Exception {
		RetryTemplate inventory = this.registry.template("inventory");
		inventory.execute((context) -> "first time");
		inventory.execute((context) -> {
			if (context.getRetryCount() == 0) {
				throw new IOException("once");
			}
			return "second time";
		});
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> inventory.execute((context) -> { throw new IllegalArgumentException("not retried"); }));
		assertThatExceptionOfType(IOException.class)
			.isThrownBy(() -> inventory.execute((context) -> { throw new IOException("always"); }));
		String recovered = inventory.execute((context) -> { throw new IOException("always"); }, (context) -> "recovered");
		assertThat(recovered).isEqualTo("recovered");

		assertThat(calls("inventory", "successful_without_retry")).isEqualTo(1);
		assertThat(calls("inventory", "successful_with_retry")).isEqualTo(1);
		assertThat(calls("inventory", "failed_without_retry")).isEqualTo(1);
		assertThat(calls("inventory", "failed_with_retry")).isEqualTo(2);
		assertThat(counter("retry.attempts", "inventory")).isEqualTo(1 + 2 + 1 + 3 + 3);
		assertThat(counter("retry.recoveries", "inventory")).isEqualTo(1);
		assertThat(rejections("inventory", "circuit_open")).isZero();
		assertThat(rejections("inventory", "budget_exhausted")).isZero();
	}

	@Test
	void reportsTheCircuitStateAndItsRejections() {
		RetryTemplate payments = this.registry.template("payments");
		assertThat(circuitState("payments")).containsExactly(1, 0, 0);

		assertThatExceptionOfType(IOException.class)
			.isThrownBy(() -> payments.execute((context) -> { throw new IOException("down"); }));
		assertThat(circuitState("payments")).containsExactly(0, 1, 0);
		assertThatExceptionOfType(CircuitOpenException.class).isThrownBy(() -> payments.execute((context) -> "never runs"));
		assertThat(rejections("payments", "circuit_open")).isEqualTo(1);

		this.time.advance(Duration.ofSeconds(30));
		assertThat(circuitState("payments")).containsExactly(0, 0, 1);
		payments.execute((context) -> "trial succeeds");
		assertThat(circuitState("payments")).containsExactly(1, 0, 0);
	}

	@Test
	void reportsBudgetTokensAndBudgetRejections() {
		RetryTemplate search = this.registry.template("search");
		assertThat(gauge("retry.budget.tokens", "search")).isEqualTo(2.0);

		assertThatExceptionOfType(IOException.class)
			.isThrownBy(() -> search.execute((context) -> { throw new IOException("down"); }));

		assertThat(gauge("retry.budget.tokens", "search")).isEqualTo(1.0);
		assertThat(rejections("search", "budget_exhausted")).isEqualTo(1);
		assertThat(calls("search", "failed_without_retry")).isEqualTo(1);
		assertThat(counter("retry.attempts", "search")).isEqualTo(1);
	}

	@Test
	void reportsTheRetriesEitherKindOfBudgetWouldAllowNowAndTokensOnlyForATokenBucket() {
		assertThat(gauge("retry.budget.available", "search")).isZero();
		RetryRegistry ratio = RetryRegistry.builder().virtualTime(this.time)
			.instance("lookup", null, (config) -> config.maxAttempts(3).backoff(BackoffPolicy.none())
				.budget(RetryBudgetConfig.builder().ratio(0.5).minPerSecond(1).window(Duration.ofSeconds(2)).build(), null))
			.build();
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		new RetryMetricsBinder(ratio).bindTo(meters);
		assertThat(meters.get("retry.budget.available").tag("name", "lookup").gauge().value()).isEqualTo(2.0);
		assertThat(meters.find("retry.budget.tokens").tag("name", "lookup").meters()).isEmpty();
		for (int i = 0; i < 4; i++) {
			ratio.template("lookup").execute((context) -> "ok");
		}
		assertThat(meters.get("retry.budget.available").tag("name", "lookup").gauge().value()).isEqualTo(4.0);
		ratio.replace("lookup", RetryConfig.builder(ratio.template("lookup").getConfig())
			.budget(RetryBudgetConfig.ofDefaults(), null).build());
		assertThat(meters.get("retry.budget.tokens").tag("name", "lookup").gauge().value()).isEqualTo(10.0);
		assertThat(meters.get("retry.budget.available").tag("name", "lookup").gauge().value()).isEqualTo(4.0);
	}

	@Test
	void reportsTheContextCacheSizeOfStatefulCalls() {
		RetryTemplate inventory = this.registry.template("inventory");
		assertThat(gauge("retry.context.cache.size", "inventory")).isZero();

		assertThatExceptionOfType(IOException.class).isThrownBy(
				() -> inventory.execute((context) -> { throw new IOException("rolled back"); }, RetryState.of("order-1")));

		assertThat(gauge("retry.context.cache.size", "inventory")).isEqualTo(1.0);
	}

	@Test
	void bindsOnlyTheMetersAnInstanceHas() {
		assertThat(this.meters.find("retry.circuit.state").tag("name", "inventory").meters()).isEmpty();
		assertThat(this.meters.find("retry.budget.tokens").tag("name", "inventory").meters()).isEmpty();
		assertThat(this.meters.find("retry.circuit.state").tag("name", "payments").meters()).hasSize(3);
		assertThat(this.meters.find("retry.budget.tokens").tag("name", "search").meters()).hasSize(1);
		assertThat(this.meters.find("retry.calls").tag("name", "inventory").meters()).hasSize(4);
		assertThat(this.meters.find("retry.rejections").tag("name", "inventory").meters()).hasSize(4);
	}

	@Test
	void bindsInstancesCreatedAfterBinding() {
		assertThat(this.meters.find("retry.calls").tag("name", "late").meters()).isEmpty();

		this.registry.template("late").execute((context) -> "created on first use");

		assertThat(calls("late", "successful_without_retry")).isEqualTo(1);
		assertThat(this.meters.find("retry.context.cache.size").tag("name", "late").gauge()).isNotNull();
	}

	@Test
	void reportsZeroPendingFailbacksWithoutCreatingAnExecutor() {
		assertThat(this.registry.names()).allSatisfy((name) -> assertThat(gauge("retry.failback.pending", name)).isZero());

		assertThat(this.registry.names()).allSatisfy((name) -> assertThat(this.registry.findFailback(name)).isEmpty());
	}

	@Test
	void reportsPendingFailbacksOfAnExecutorCreatedAfterBinding() {
		// inventory: 3 attempts, 100ms apart; its failback executor is created only now.
		FailbackExecutor failback = this.registry.failback("inventory");
		int[] runs = { 0 };
		failback.submit("flaky", () -> {
			if (runs[0]++ == 0) {
				throw new UncheckedIOException(new IOException("once"));
			}
		});
		failback.submit("down", () -> {
			throw new UncheckedIOException(new IOException("always"));
		});
		assertThat(failback.submit("fine", () -> { })).isTrue();
		assertThat(gauge("retry.failback.pending", "inventory")).isEqualTo(2.0);

		this.time.advance(Duration.ofMillis(100));
		assertThat(gauge("retry.failback.pending", "inventory")).isEqualTo(1.0);

		this.time.advance(Duration.ofMillis(100));
		assertThat(failback.exhaustedCount()).isEqualTo(1);
		assertThat(gauge("retry.failback.pending", "inventory")).isZero();
		assertThat(gauge("retry.failback.pending", "payments")).isZero();
	}

	@Test
	void reportsPendingFailbacksOfAnInstanceCreatedByItsFailbackExecutor() {
		this.registry.failback("late").submit("k", () -> {
			throw new UncheckedIOException(new IOException("down"));
		});

		assertThat(gauge("retry.failback.pending", "late")).isEqualTo(1.0);
	}

	@Test
	void countsFailbackSubmitsRefusedBecauseTheExecutorWasFull() {
		assertThat(counter("retry.failback.rejected", "audit")).isZero();
		FailbackExecutor failback = this.registry.failback("audit");
		failback.submit("a", () -> {
			throw new UncheckedIOException(new IOException("down"));
		});
		assertThatExceptionOfType(RejectedExecutionException.class).isThrownBy(() -> failback.submit("b", () -> { }));

		assertThat(counter("retry.failback.rejected", "audit")).isEqualTo(1);
		assertThat(this.meters.get("retry.failback.rejected").tag("name", "audit").meter())
			.isInstanceOf(FunctionCounter.class);
		assertThat(counter("retry.failback.rejected", "inventory")).isZero();
	}

	@Test
	void theBudgetGaugeReadsTheBudgetThatAReplacementGaveTheInstance() {
		RetryTemplate search = this.registry.template("search");
		RetryBudgetConfig newRatio = RetryBudgetConfig.builder().maxTokens(2).tokenRatio(0.5).build();
		this.registry.replace("search", RetryConfig.builder(search.getConfig()).budget(newRatio, null).build());
		assertThat(search.getBudget().getConfig()).isEqualTo(newRatio);

		assertThatExceptionOfType(IOException.class)
			.isThrownBy(() -> search.execute((context) -> { throw new IOException("down"); }));

		assertThat(search.getBudget().getTokens()).isEqualTo(1.0);
		assertThat(gauge("retry.budget.tokens", "search")).isEqualTo(1.0);
	}

	@Test
	void theCircuitGaugesFollowABreakerThatAReplacementAddsOrRemoves() {
		RetryTemplate inventory = this.registry.template("inventory");
		this.registry.replace("inventory", RetryConfig.builder(inventory.getConfig())
			.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures >= 1").build()).build());
		assertThat(circuitState("inventory")).containsExactly(1, 0, 0);
		inventory.getCircuitBreaker().forceOpen();
		assertThat(circuitState("inventory")).containsExactly(0, 1, 0);

		this.registry.replace("inventory", RetryConfig.builder(inventory.getConfig()).circuitBreaker(null).build());
		assertThat(this.meters.find("retry.circuit.state").tag("name", "inventory").meters()).isEmpty();
	}

	@Test
	void everyMeterIsTaggedWithTheInstanceName() {
		assertThat(this.meters.getMeters()).allSatisfy((meter) -> assertThat(meter.getId().getTag("name"))
			.isIn(this.registry.names()));
		assertThat(this.meters.getMeters()).extracting((meter) -> meter.getId().getName()).containsOnly("retry.calls",
				"retry.attempts", "retry.recoveries", "retry.rejections", "retry.circuit.state", "retry.budget.tokens",
				"retry.budget.available", "retry.context.cache.size", "retry.context.cache.evictions", "retry.failback.pending",
				"retry.failback.exhausted", "retry.failback.rejected");
		assertThat(this.meters.getMeters()).filteredOn((meter) -> meter.getId().getName().equals("retry.calls"))
			.allSatisfy((meter) -> assertThat(meter).isInstanceOf(FunctionCounter.class));
	}

	@Test
	void bindingTwiceKeepsOneMeterPerId() {
		int before = this.meters.getMeters().size();
		// Micrometer logs the ignored second registrations this test provokes on purpose; keep them out of the log.
		Logger micrometer = (Logger) LoggerFactory.getLogger(MeterRegistry.class);
		Level level = micrometer.getLevel();
		micrometer.setLevel(Level.ERROR);
		try {
			new RetryMetricsBinder(this.registry).bindTo(this.meters);
		}
		finally {
			micrometer.setLevel(level);
		}

		assertThat(this.meters.getMeters()).hasSize(before);
	}

	private double calls(String name, String kind) {
		return this.meters.get("retry.calls").tag("name", name).tag("kind", kind).functionCounter().count();
	}

	private double rejections(String name, String reason) {
		return this.meters.get("retry.rejections").tag("name", name).tag("reason", reason).functionCounter().count();
	}

	private double counter(String meter, String name) {
		return this.meters.get(meter).tag("name", name).functionCounter().count();
	}

	private double gauge(String meter, String name) {
		return this.meters.get(meter).tag("name", name).gauge().value();
	}

	/** @return the gauge values for closed, open and half_open, in that order */
	private int[] circuitState(String name) {
		return new int[] { stateGauge(name, "closed"), stateGauge(name, "open"), stateGauge(name, "half_open") };
	}

	private int stateGauge(String name, String state) {
		Gauge gauge = this.meters.get("retry.circuit.state").tag("name", name).tag("state", state).gauge();
		return (int) gauge.value();
	}

}
