package dev.retrykit.spring.boot.observation;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryState;
import dev.retrykit.RetryTemplate;
import dev.retrykit.RetryTemplateBuilder;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.circuit.CircuitOpenException;
import dev.retrykit.reactor.RetryOperator;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryObservationListenerTests {

	private final VirtualTime time = new VirtualTime();

	private final TestObservationRegistry registry = TestObservationRegistry.create();

	private RetryTemplateBuilder template(RetryObservationListener listener) {
		return RetryTemplate.builder().name("inventory").virtualTime(this.time)
			.backoff(BackoffPolicy.fixed(Duration.ofMillis(100))).listener(listener);
	}

	private RetryTemplateBuilder template() {
		return template(new RetryObservationListener(this.registry));
	}

	private static String failTwice(AtomicInteger runs) throws IOException {
		if (runs.incrementAndGet() < 3) {
			throw new IOException("down");
		}
		return "ok";
	}

	@Test
	void eachAttemptIsAChildOfItsCall() throws Exception {
		AtomicInteger runs = new AtomicInteger();
		template().build().execute(context -> failTwice(runs));
		assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("retry.call", 1)
			.hasNumberOfObservationsWithNameEqualTo("retry.attempt", 3)
			.hasHandledContextsThatSatisfy(contexts -> {
				Observation.Context call = contexts.stream().filter(RetryObservationContext.class::isInstance)
					.findFirst().orElseThrow();
				List<Observation.Context> attempts = contexts.stream()
					.filter(RetryAttemptObservationContext.class::isInstance).toList();
				assertThat(attempts).allSatisfy(attempt -> assertThat(attempt.getParentObservation().getContextView())
					.isSameAs(call));
				assertThat(attempts).extracting(attempt -> attempt.getHighCardinalityKeyValue("attempt").getValue())
					.containsExactly("1", "2", "3");
				assertThat(attempts).extracting(attempt -> attempt.getLowCardinalityKeyValue("exception").getValue())
					.containsExactly("IOException", "IOException", "none");
			});
		assertThat(this.registry).hasObservationWithNameEqualTo("retry.call").that()
			.hasContextualNameEqualTo("retry inventory")
			.hasLowCardinalityKeyValue("name", "inventory")
			.hasLowCardinalityKeyValue("outcome", "successful_with_retry")
			.hasLowCardinalityKeyValue("exception", "none")
			.hasBeenStarted().hasBeenStopped();
	}

	@Test
	void whileACallRunsItsObservationsHaveOnlyTheKeysKnownAtTheirStart() throws Exception {
		List<KeyValues> whileRunning = new CopyOnWriteArrayList<>();
		template().build().execute(context -> {
			Observation.ContextView attempt = this.registry.getCurrentObservation().getContextView();
			whileRunning.add(attempt.getLowCardinalityKeyValues());
			whileRunning.add(attempt.getParentObservation().getContextView().getLowCardinalityKeyValues());
			return "ok";
		});
		assertThat(whileRunning).containsExactly(KeyValues.of("name", "inventory", "hedged", "false"),
				KeyValues.of("name", "inventory"));
		assertThat(this.registry).hasObservationWithNameEqualTo("retry.attempt").that()
			.hasLowCardinalityKeyValue("exception", "none").hasLowCardinalityKeyValue("hedged", "false");
	}

	@Test
	void theCallKeepsTheObservationThatWasCurrentAsItsParent() throws Exception {
		Observation request = Observation.start("http.server.requests", this.registry);
		try (Observation.Scope scope = request.openScope()) {
			template().build().execute(context -> "ok");
		}
		request.stop();
		assertThat(this.registry).hasObservationWithNameEqualTo("retry.call").that()
			.hasParentObservationEqualTo(request)
			.hasLowCardinalityKeyValue("outcome", "successful_without_retry");
	}

	@Test
	void aCallThatFailsAtOnceIsFailedWithoutRetry() {
		RetryTemplate template = template().maxAttempts(1).build();
		assertThatThrownBy(() -> template.execute(context -> {
			throw new IllegalStateException("broken");
		})).isInstanceOf(IllegalStateException.class);
		assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("retry.attempt", 1)
			.hasObservationWithNameEqualTo("retry.call").that()
			.hasLowCardinalityKeyValue("outcome", "failed_without_retry")
			.hasLowCardinalityKeyValue("exception", "IllegalStateException")
			.assertThatError().isInstanceOf(IllegalStateException.class);
	}

	@Test
	void anExhaustedCallIsFailedWithRetry() {
		RetryTemplate template = template().build();
		assertThatThrownBy(() -> template.execute(context -> {
			throw new IOException("down");
		})).isInstanceOf(IOException.class);
		assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("retry.attempt", 3)
			.hasObservationWithNameEqualTo("retry.call").that()
			.hasLowCardinalityKeyValue("outcome", "failed_with_retry")
			.hasLowCardinalityKeyValue("exception", "IOException");
	}

	@Test
	void aRecoveredCallIsRecoveredWithTheFailureItRecoveredFrom() throws Exception {
		RetryTemplate template = template().build();
		String result = template.execute(context -> {
			throw new IOException("down");
		}, context -> "fallback");
		assertThat(result).isEqualTo("fallback");
		assertThat(this.registry).hasObservationWithNameEqualTo("retry.call").that()
			.hasLowCardinalityKeyValue("outcome", "recovered")
			.hasLowCardinalityKeyValue("exception", "IOException")
			.doesNotHaveError();
	}

	@Test
	void aCallWhoseResultsAreRejectedUntilItsAttemptsRunOutIsFailedAsTheCountersSay() throws Exception {
		RetryTemplate template = template().retryOnResult(result -> "empty".equals(result)).build();

		String result = template.execute(context -> "empty");

		assertThat(result).isEqualTo("empty");
		assertThat(template.getMetrics().getFailedCallsWithRetry()).isEqualTo(1);
		assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("retry.attempt", 3)
			.hasObservationWithNameEqualTo("retry.call").that()
			.hasLowCardinalityKeyValue("outcome", "failed_with_retry")
			.doesNotHaveError();
	}

	@Test
	void aCallRefusedByTheOpenCircuitIsRejectedWithoutAnAttempt() {
		CircuitBreaker breaker = CircuitBreaker.create("inventory", CircuitBreakerConfig.builder().build(), this.time);
		breaker.forceOpen();
		RetryTemplate template = template().circuitBreaker(breaker).build();
		assertThatThrownBy(() -> template.execute(context -> "never")).isInstanceOf(CircuitOpenException.class);
		assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("retry.attempt", 0)
			.hasObservationWithNameEqualTo("retry.call").that()
			.hasLowCardinalityKeyValue("outcome", "rejected")
			.hasLowCardinalityKeyValue("exception", "CircuitOpenException");
	}

	@Test
	void aStatefulCallIsObservedPerDeliveryAndLeavesNoObservationInTheCachedContext() {
		RetryTemplate template = template().build();
		RetryState state = RetryState.of("message-1");
		AtomicInteger runs = new AtomicInteger();
		assertThatThrownBy(() -> template.execute(context -> failTwice(runs), state)).isInstanceOf(IOException.class);
		assertThat(template.getContextCache().entries(1)).singleElement()
			.satisfies(entry -> assertThat(entry.context().getAttribute(RetryObservationListener.ATTRIBUTE))
				.isInstanceOfSatisfying(RetryObservationListener.CallObservation.class,
						holder -> assertThat(holder.isEnded()).isTrue()));
		this.registry.clear();
		assertThatThrownBy(() -> template.execute(context -> failTwice(runs), state)).isInstanceOf(IOException.class);
		assertThat(this.registry).hasObservationWithNameEqualTo("retry.attempt").that()
			.hasHighCardinalityKeyValue("attempt", "2");
	}

	@Test
	void anAsyncRetryOnAnotherThreadIsStillAChildOfItsCall() throws Exception {
		List<Thread> threads = new CopyOnWriteArrayList<>();
		AtomicInteger runs = new AtomicInteger();
		RetryTemplate template = template().build();
		CompletableFuture<String> result = template.executeAsync(() -> {
			threads.add(Thread.currentThread());
			return (runs.incrementAndGet() < 2) ? CompletableFuture.failedFuture(new IllegalStateException("down"))
					: CompletableFuture.completedFuture("ok");
		});
		// The retry is due in virtual time: the thread that advances it runs the second attempt.
		Thread timer = new Thread(() -> this.time.advance(Duration.ofMillis(100)), "retry-timer");
		timer.start();
		timer.join(TimeUnit.SECONDS.toMillis(10));
		assertThat(result).isCompletedWithValue("ok");
		assertThat(threads).containsExactly(Thread.currentThread(), timer);
		assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("retry.attempt", 2)
			.hasHandledContextsThatSatisfy(contexts -> {
				Observation.Context call = contexts.stream().filter(RetryObservationContext.class::isInstance)
					.findFirst().orElseThrow();
				assertThat(contexts.stream().filter(RetryAttemptObservationContext.class::isInstance))
					.allSatisfy(attempt -> assertThat(attempt.getParentObservation().getContextView()).isSameAs(call));
				assertThat(call.getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("successful_with_retry");
			});
	}

	@Test
	void aFailbackTaskRetriedInTheBackgroundKeepsTheCallersObservationAsParent() throws Exception {
		RetryRegistry retries = RetryRegistry.builder().virtualTime(this.time)
			.instance("audit", null, config -> config.maxAttempts(3).backoff(BackoffPolicy.fixed(Duration.ofSeconds(1))))
			.listener(new RetryObservationListener(this.registry)).build();
		AtomicInteger runs = new AtomicInteger();
		Observation request = Observation.start("http.server.requests", this.registry);
		try (Observation.Scope scope = request.openScope()) {
			retries.failback("audit").submit("event-1", () -> {
				if (runs.incrementAndGet() < 2) {
					throw new IllegalStateException("down");
				}
			});
		}
		request.stop();
		Thread timer = new Thread(() -> this.time.advance(Duration.ofSeconds(1)), "retry-timer");
		timer.start();
		timer.join(TimeUnit.SECONDS.toMillis(10));
		assertThat(runs).hasValue(2);
		assertThat(this.registry).hasObservationWithNameEqualTo("retry.call").that()
			.hasParentObservationEqualTo(request)
			.hasLowCardinalityKeyValue("outcome", "successful_with_retry");
		assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("retry.attempt", 2)
			.hasHandledContextsThatSatisfy(contexts -> {
				Observation.Context call = contexts.stream().filter(RetryObservationContext.class::isInstance)
					.findFirst().orElseThrow();
				assertThat(contexts.stream().filter(RetryAttemptObservationContext.class::isInstance))
					.allSatisfy(attempt -> assertThat(attempt.getParentObservation().getContextView()).isSameAs(call));
			});
	}

	@Test
	void eachAttemptIsInScopeWhileItsCodeRunsSoThatWhatItObservesHangsUnderIt() throws Exception {
		List<Observation.ContextView> current = new CopyOnWriteArrayList<>();
		AtomicInteger runs = new AtomicInteger();
		Observation request = Observation.start("http.server.requests", this.registry);
		try (Observation.Scope scope = request.openScope()) {
			template().build().execute(context -> {
				current.add(this.registry.getCurrentObservation().getContextView());
				// What the attempt's code observes (an HTTP client call) takes the attempt as its parent.
				Observation.createNotStarted("http.client.requests", this.registry).observe(() -> { });
				return failTwice(runs);
			});
			assertThat(this.registry.getCurrentObservation()).isSameAs(request);
		}
		request.stop();
		assertThat(this.registry.getCurrentObservation()).isNull();
		assertThat(this.registry).hasHandledContextsThatSatisfy(contexts -> {
			List<Observation.Context> attempts = contexts.stream()
				.filter(RetryAttemptObservationContext.class::isInstance).toList();
			assertThat(current).hasSize(3).containsExactlyElementsOf(attempts);
			List<Observation.ContextView> clientParents = contexts.stream()
				.filter(context -> "http.client.requests".equals(context.getName()))
				.map(context -> context.getParentObservation().getContextView()).toList();
			assertThat(clientParents).containsExactlyElementsOf(attempts);
		});
	}

	@Test
	void anAsyncAttemptIsInScopeWhileItsSupplierRunsOnEachThreadAndLeavesNothingThere() throws Exception {
		List<Observation.ContextView> current = new CopyOnWriteArrayList<>();
		List<Observation> afterOnTimer = new CopyOnWriteArrayList<>();
		AtomicInteger runs = new AtomicInteger();
		CompletableFuture<String> result = template().build().executeAsync(() -> {
			current.add(this.registry.getCurrentObservation().getContextView());
			return (runs.incrementAndGet() < 2) ? CompletableFuture.failedFuture(new IllegalStateException("down"))
					: CompletableFuture.completedFuture("ok");
		});
		assertThat(this.registry.getCurrentObservation()).isNull();
		Thread timer = new Thread(() -> {
			this.time.advance(Duration.ofMillis(100));
			afterOnTimer.add(java.util.Objects.requireNonNullElse(this.registry.getCurrentObservation(), Observation.NOOP));
		}, "retry-timer");
		timer.start();
		timer.join(TimeUnit.SECONDS.toMillis(10));
		assertThat(result).isCompletedWithValue("ok");
		assertThat(afterOnTimer).containsExactly(Observation.NOOP);
		assertThat(this.registry).hasHandledContextsThatSatisfy(contexts -> assertThat(current)
			.containsExactlyElementsOf(contexts.stream().filter(RetryAttemptObservationContext.class::isInstance).toList()));
	}

	@Test
	void aMonosAttemptIsInScopeWhileItIsSubscribed() {
		List<Observation.ContextView> current = new CopyOnWriteArrayList<>();
		AtomicInteger runs = new AtomicInteger();
		Mono<String> source = Mono.defer(() -> {
			current.add(this.registry.getCurrentObservation().getContextView());
			return (runs.incrementAndGet() < 2) ? Mono.error(new IOException("down"))
					: Mono.just("ok");
		});
		RetryTemplate template = template().backoff(BackoffPolicy.none()).build();
		String result = Mono.from(RetryOperator.<String>of(template).apply(source))
			.block(Duration.ofSeconds(10));
		assertThat(result).isEqualTo("ok");
		assertThat(this.registry.getCurrentObservation()).isNull();
		assertThat(this.registry).hasHandledContextsThatSatisfy(contexts -> assertThat(current)
			.containsExactlyElementsOf(contexts.stream().filter(RetryAttemptObservationContext.class::isInstance).toList()));
	}

	@Test
	void aFailbackTasksAttemptsAreInScopeWhileTheyRun() throws Exception {
		RetryRegistry retries = RetryRegistry.builder().virtualTime(this.time)
			.instance("audit", null, config -> config.maxAttempts(3).backoff(BackoffPolicy.fixed(Duration.ofSeconds(1))))
			.listener(new RetryObservationListener(this.registry)).build();
		List<Observation.ContextView> current = new CopyOnWriteArrayList<>();
		AtomicInteger runs = new AtomicInteger();
		retries.failback("audit").submit("event-1", () -> {
			current.add(this.registry.getCurrentObservation().getContextView());
			if (runs.incrementAndGet() < 2) {
				throw new IllegalStateException("down");
			}
		});
		assertThat(this.registry.getCurrentObservation()).isNull();
		this.time.advance(Duration.ofSeconds(1));
		assertThat(this.registry.getCurrentObservation()).isNull();
		assertThat(this.registry).hasHandledContextsThatSatisfy(contexts -> assertThat(current)
			.containsExactlyElementsOf(contexts.stream().filter(RetryAttemptObservationContext.class::isInstance).toList()));
	}

	@Test
	void customConventionsRenameAndRetag() throws Exception {
		RetryObservationConvention call = new DefaultRetryObservationConvention() {
			@Override
			public String getName() {
				return "shop.retry";
			}

			@Override
			public KeyValues getLowCardinalityKeyValues(RetryObservationContext context) {
				return super.getLowCardinalityKeyValues(context).and("team", "checkout");
			}
		};
		RetryAttemptObservationConvention attempt = new DefaultRetryAttemptObservationConvention() {
			@Override
			public String getName() {
				return "shop.retry.attempt";
			}
		};
		template(new RetryObservationListener(this.registry, call, attempt)).build().execute(context -> "ok");
		assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("retry.call", 0)
			.hasObservationWithNameEqualTo("shop.retry").that().hasLowCardinalityKeyValue("team", "checkout")
			.hasLowCardinalityKeyValue("outcome", "successful_without_retry");
		assertThat(this.registry).hasObservationWithNameEqualTo("shop.retry.attempt");
	}

	@Test
	void observesNothingThroughANoopRegistryOrOneWhosePredicatesTurnRetryOff() {
		assertThat(new RetryObservationListener(ObservationRegistry.NOOP).isObserving("inventory")).isFalse();
		assertThat(new RetryObservationListener(ObservationRegistry.create()).isObserving("inventory")).isFalse();
		this.registry.observationConfig().observationPredicate((name, context) -> !name.startsWith("retry"));
		assertThat(new RetryObservationListener(this.registry).isObserving("inventory")).isFalse();
		assertThat(new RetryObservationListener(TestObservationRegistry.create()).isObserving("inventory")).isTrue();
	}

}
