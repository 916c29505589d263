package dev.retrykit.spring.boot.actuate.endpoint;

import java.io.IOException;
import java.time.Duration;

import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryState;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.Show;

import static dev.retrykit.spring.boot.actuate.endpoint.TestRetryRegistries.SECRET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;

class RetriesEndpointTests {

	private final VirtualTime time = new VirtualTime();

	private final RetryRegistry registry = TestRetryRegistries.create(this.time);

	private final RetriesEndpoint endpoint = new RetriesEndpoint(this.registry, Show.NEVER, this.time);

	@Test
	void listsEveryInstanceInNameOrder() {
		assertThat(this.endpoint.retries().instances()).containsOnlyKeys("inventory", "payments", "search");
		assertThat(this.endpoint.retries().instances().keySet()).containsExactly("inventory", "payments", "search");
	}

	@Test
	void showsTheEffectiveConfigWithReadableDurations() {
		RetryConfigDescriptor config = this.endpoint.retries().instances().get("inventory").config();

		assertThat(config.maxAttempts()).isEqualTo(4);
		assertThat(config.maxDuration()).isEqualTo("10s");
		assertThat(config.backoff()).isEqualTo(new RetryConfigDescriptor.Backoff("exponential", "100ms", 2.0, "2s", 0.5, null));
		assertThat(config.retryOn()).containsExactly("java.io.IOException");
		assertThat(config.ignore()).containsExactly("java.lang.IllegalArgumentException");
		assertThat(config.httpStatus()).isEqualTo("429,500-599");
		assertThat(config.circuitBreaker()).isNull();
		assertThat(this.endpoint.retries().instances().get("payments").config().circuitBreaker())
			.isEqualTo(new RetryConfigDescriptor.CircuitBreaker("consecutiveFailures >= 2", "0s", "30s", 1));
		assertThat(this.endpoint.retries().instances().get("search").config().budget())
			.isEqualTo(new RetryConfigDescriptor.Budget(2, 0.1, null));
	}

	@Test
	void countsCallsAttemptsAndRecoveries() throws Exception {
		this.registry.template("inventory").execute((context) -> "ok");
		TestRetryRegistries.fail(this.registry.template("inventory"), "timeout");
		this.registry.template("inventory").execute((context) -> {
			throw new IOException("down");
		}, (context) -> "fallback");

		RetryInstanceDescriptor inventory = this.endpoint.retries().instances().get("inventory");

		assertThat(inventory.calls()).isEqualTo(new RetryInstanceDescriptor.Calls(1, 0, 0, 2));
		assertThat(inventory.attempts()).isEqualTo(1 + 4 + 4);
		assertThat(inventory.recoveries()).isEqualTo(1);
		assertThat(inventory.rejections()).isEqualTo(new RetryInstanceDescriptor.Rejections(0, 0, 0, 0));
	}

	@Test
	void leavesOutThePartsAnInstanceDoesNotHave() {
		RetryInstanceDescriptor inventory = this.endpoint.retries().instances().get("inventory");

		assertThat(inventory.circuit()).isNull();
		assertThat(inventory.budget()).isNull();
		assertThat(inventory.contextCache()).isNull();
		assertThat(inventory.recentEvents()).isNull();
		assertThat(this.endpoint.retries().instances().get("payments").circuit()).isNotNull();
		assertThat(this.endpoint.retries().instances().get("search").budget())
			.isEqualTo(new RetryInstanceDescriptor.Budget(2.0, 2));
	}

	@Test
	void showsTheCacheOfAnInstanceUsedForStatefulRetryAlsoOnceItIsEmptyAgain() throws Exception {
		RetryState state = RetryState.of("order-1");
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> this.registry.template("inventory").execute(context -> {
			throw new IOException("down");
		}, state));
		assertThat(this.endpoint.retries().instances().get("inventory").contextCache().size()).isEqualTo(1);

		this.registry.template("inventory").execute(context -> "ok", state);

		RetryInstanceDescriptor.ContextCache cache = this.endpoint.retries().instances().get("inventory").contextCache();
		assertThat(cache).isNotNull();
		assertThat(cache.size()).isZero();
		assertThat(this.endpoint.retries().instances().get("search").contextCache()).isNull();
	}

	@Test
	void showsAnOpenCircuitWithTheTimeLeftUntilHalfOpen() {
		TestRetryRegistries.openPaymentsCircuit(this.registry);
		this.time.advance(Duration.ofSeconds(10));

		RetryInstanceDescriptor.Circuit circuit = this.endpoint.retries().instances().get("payments").circuit();

		assertThat(circuit.state()).isEqualTo("OPEN");
		assertThat(circuit.forcedOpen()).isFalse();
		assertThat(circuit.remainingOpen()).isEqualTo("20s");
		this.time.advance(Duration.ofSeconds(20));
		assertThat(this.endpoint.retries().instances().get("payments").circuit().state()).isEqualTo("HALF_OPEN");
	}

	@Test
	void showsBudgetTokensAndRefusals() {
		TestRetryRegistries.fail(this.registry.template("search"), "down");

		RetryInstanceDescriptor search = this.endpoint.retries().instances().get("search");

		assertThat(search.budget()).isEqualTo(new RetryInstanceDescriptor.Budget(1.0, 2));
		assertThat(search.rejections().budgetExhausted()).isEqualTo(1);
	}

	@Test
	void showsTheContextCacheOnceUsedForStatefulRetry() {
		TestRetryRegistries.failStatefully(this.registry, "order-1");

		assertThat(this.endpoint.retries().instances().get("inventory").contextCache())
			.isEqualTo(new RetryInstanceDescriptor.ContextCache(1, 4096, 0, null, null));
	}

	@Test
	void showsTheContextCacheOfAStatefulInstanceBeforeItsFirstUse() {
		RetryRegistry registry = dev.retrykit.RetryRegistry.builder().virtualTime(this.time)
			.instance("orders", null, config -> config.stateful(true)).build();
		RetriesEndpoint endpoint = new RetriesEndpoint(registry, Show.NEVER, this.time);
		assertThat(endpoint.retries().instances().get("orders").contextCache())
			.isEqualTo(new RetryInstanceDescriptor.ContextCache(0, 4096, 0, null, null));
		assertThat(endpoint.retries().instances().get("orders").config().stateful()).isTrue();
	}

	@Test
	void detailListsMaskedCacheEntriesWithTheirAge() {
		TestRetryRegistries.failStatefully(this.registry, SECRET);
		this.time.advance(Duration.ofSeconds(90));

		RetryInstanceDescriptor.ContextCache cache = this.endpoint.retry("inventory").contextCache();

		assertThat(cache.entries()).singleElement().satisfies((entry) -> {
			assertThat(entry.key()).isEqualTo("******");
			assertThat(entry.retryCount()).isEqualTo(1);
			assertThat(entry.lastErrorType()).isEqualTo("java.io.IOException");
			assertThat(entry.createdAt()).isEqualTo("2026-01-01T00:00:00Z");
			assertThat(entry.age()).isEqualTo("1m30s");
		});
		assertThat(cache.entriesOmitted()).isZero();
	}

	@Test
	void detailMasksExceptionMessagesButShowsTheirTypes() {
		TestRetryRegistries.failStatefully(this.registry, "order-1");

		// A failed stateful attempt records the retry it schedules, then the rethrow to the caller.
		assertThat(this.endpoint.retry("inventory").recentEvents()).extracting(RetryInstanceDescriptor.Event::type)
			.containsExactly("RETRY", "STATEFUL_RETHROW");
		assertThat(this.endpoint.retry("inventory").recentEvents()).allSatisfy((event) -> {
			assertThat(event.exceptionType()).isEqualTo("java.io.IOException");
			assertThat(event.exceptionMessage()).isEqualTo("******");
			assertThat(event.attempt()).isEqualTo(1);
			assertThat(event.time()).isEqualTo("2026-01-01T00:00:00Z");
		});
	}

	@Test
	void showsValuesWhenAllowed() {
		TestRetryRegistries.failStatefully(this.registry, SECRET);
		RetriesEndpoint showing = new RetriesEndpoint(this.registry, Show.ALWAYS, this.time);

		RetryInstanceDescriptor inventory = showing.retry("inventory");

		assertThat(inventory.contextCache().entries().get(0).key()).isEqualTo(SECRET);
		assertThat(inventory.recentEvents().get(0).exceptionMessage()).isEqualTo("declined " + SECRET);
	}

	@Test
	void showsTheTypeAndTheBoundedMessageOfAFailureThatCarriedALargeBody() {
		String body = "x".repeat(256 * 1024);
		TestRetryRegistries.fail(this.registry.template("inventory"), body);
		RetriesEndpoint showing = new RetriesEndpoint(this.registry, Show.ALWAYS, this.time);

		assertThat(showing.retry("inventory").recentEvents()).isNotEmpty().allSatisfy((event) -> {
			assertThat(event.exceptionType()).isEqualTo("java.io.IOException");
			assertThat(event.exceptionMessage())
				.isEqualTo("x".repeat(256) + "... [truncated from " + body.length() + " characters]");
		});
	}

	@Test
	void treatsWhenAuthorizedAsShownOutsideTheWeb() {
		TestRetryRegistries.failStatefully(this.registry, SECRET);

		assertThat(new RetriesEndpoint(this.registry, Show.WHEN_AUTHORIZED, this.time).retry("inventory").contextCache()
			.entries().get(0).key()).isEqualTo(SECRET);
	}

	@Test
	void detailListsRecentEventsWithDelays() {
		TestRetryRegistries.fail(this.registry.template("payments"), "down");

		assertThat(this.endpoint.retry("payments").recentEvents())
			.extracting(RetryInstanceDescriptor.Event::type, RetryInstanceDescriptor.Event::attempt,
					RetryInstanceDescriptor.Event::delay)
			.containsExactly(tuple("RETRY", 1, "0s"),
					tuple("EXHAUSTED", 2, "0s"));
		assertThat(this.endpoint.retry("payments").recentEventsOmitted()).isZero();
	}

	@Test
	void boundsLongListsAndSaysHowManyWereLeftOut() {
		RetryRegistry big = RetryRegistry.builder().virtualTime(this.time).eventBufferSize(500)
			.instance("bulk", null, (config) -> config.maxAttempts(10).backoff(BackoffPolicy.none())).build();
		for (int i = 0; i < 150; i++) {
			TestRetryRegistries.failStatefully(big, "key-" + i);
		}
		// failStatefully uses "inventory", a name "big" does not declare: it is created from the defaults.
		RetryInstanceDescriptor detail = new RetriesEndpoint(big, Show.NEVER, this.time).retry("inventory");

		assertThat(detail.contextCache().size()).isEqualTo(150);
		assertThat(detail.contextCache().entries()).hasSize(100);
		assertThat(detail.contextCache().entriesOmitted()).isEqualTo(50);
		// Two events per failed stateful call (RETRY, STATEFUL_RETHROW): 300 recorded, the newest 100 listed.
		assertThat(detail.recentEvents()).hasSize(100);
		assertThat(detail.recentEventsOmitted()).isEqualTo(200);
		assertThat(detail.recentEvents().get(99).type()).isEqualTo("STATEFUL_RETHROW");
	}

	@Test
	void answersNullForAnUnknownNameWithoutCreatingTheInstance() {
		assertThat(this.endpoint.retry("unknown")).isNull();
		assertThat(this.registry.names()).doesNotContain("unknown");
	}

	@Test
	void opensAndClosesACircuitByHand() {
		assertThat(this.endpoint.perform("payments", "open-circuit").circuit().state()).isEqualTo("OPEN");
		assertThat(this.endpoint.retries().instances().get("payments").circuit().forcedOpen()).isTrue();
		assertThat(this.endpoint.retries().instances().get("payments").circuit().remainingOpen()).isNull();

		assertThat(this.endpoint.perform("payments", "close-circuit").circuit().state()).isEqualTo("CLOSED");
		assertThat(this.registry.template("payments").getCircuitBreaker().isForcedOpen()).isFalse();
	}

	@Test
	void clearsTheContextCache() {
		TestRetryRegistries.failStatefully(this.registry, "order-1");

		this.endpoint.perform("inventory", "clear-cache");

		assertThat(this.registry.template("inventory").getContextCache().size()).isZero();
	}

	@Test
	void refusesAnUnknownActionWithTheAllowedOnes() {
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.perform("payments", "reset"))
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo("Unknown action 'reset' for retry instance "
					+ "'payments'; use open-circuit, close-circuit or clear-cache"));
	}

	@Test
	void refusesACircuitActionOnAnInstanceWithoutACircuit() {
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.perform("inventory", "open-circuit"))
			.withMessageContaining("Retry instance 'inventory' has no circuit breaker");
	}

	@Test
	void refusesAnActionOnAnUnknownInstance() {
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.perform("unknown", "clear-cache"))
			.withMessage("No retry instance named 'unknown'; known instances: [inventory, payments, search]");
		assertThat(this.registry.names()).doesNotContain("unknown");
	}

}
