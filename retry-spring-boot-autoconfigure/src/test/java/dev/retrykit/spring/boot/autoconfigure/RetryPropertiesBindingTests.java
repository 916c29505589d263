package dev.retrykit.spring.boot.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Predicate;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryRegistry;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.backoff.BackoffType;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.policy.StatusCodes;
import dev.retrykit.spi.DelayHintExtractor;
import dev.retrykit.spi.StatusExtractor;
import dev.retrykit.spring.boot.http.RetryAfterDelayHintExtractor;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.client.HttpClientErrorException;

import static org.assertj.core.api.Assertions.assertThat;

class RetryPropertiesBindingTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class));

	@Test
	void bindsEveryInstanceSettingOfTheDesignExample() {
		this.runner.withBean("emptyInventoryPredicate", Predicate.class, () -> (Predicate<Object>) value -> value == null)
			.withPropertyValues("retry.configs.slow-backend.backoff.type=exponential",
					"retry.configs.slow-backend.backoff.delay=500ms", "retry.configs.slow-backend.backoff.max-delay=30s",
					"retry.instances.inventory.base-config=slow-backend", "retry.instances.inventory.max-attempts=4",
					"retry.instances.inventory.max-duration=10s", "retry.instances.inventory.attempt-timeout=2s",
					"retry.instances.inventory.backoff.delay=100ms", "retry.instances.inventory.backoff.multiplier=2",
					"retry.instances.inventory.backoff.max-delay=2s", "retry.instances.inventory.backoff.jitter=0.5",
					"retry.instances.inventory.retry-on[0]=java.io.IOException",
					"retry.instances.inventory.ignore[0]=java.lang.IllegalArgumentException",
					"retry.instances.inventory.retry-on-result=emptyInventoryPredicate",
					"retry.instances.inventory.match.http-status=429,500-599",
					"retry.instances.inventory.match.grpc-status=14", "retry.instances.inventory.honor-retry-after=true",
					"retry.instances.inventory.stateful=false", "retry.instances.inventory.circuit-breaker.enabled=true",
					"retry.instances.inventory.circuit-breaker.trip=consecutiveFailures > 5",
					"retry.instances.inventory.circuit-breaker.interval=0s",
					"retry.instances.inventory.circuit-breaker.timeout=30s",
					"retry.instances.inventory.circuit-breaker.max-requests=1", "retry.instances.inventory.budget.enabled=true",
					"retry.instances.inventory.budget.max-tokens=10", "retry.instances.inventory.budget.token-ratio=0.1",
					"retry.instances.inventory.budget.name=shared-downstream", "retry.context-cache.capacity=100")
			.run(context -> {
				RetryRegistry registry = context.getBean(RetryRegistry.class);
				RetryConfig config = registry.template("inventory").getConfig();
				assertThat(config.getMaxAttempts()).isEqualTo(4);
				assertThat(config.getMaxDuration()).isEqualTo(Duration.ofSeconds(10));
				assertThat(config.getAttemptTimeout()).isEqualTo(Duration.ofSeconds(2));
				assertThat(config.getBackoff()).isEqualTo(BackoffPolicy.builder().type(BackoffType.EXPONENTIAL)
					.delay(Duration.ofMillis(100)).multiplier(2).maxDelay(Duration.ofSeconds(2)).jitter(0.5).build());
				assertThat(config.getRetryOn()).containsExactly(IOException.class);
				assertThat(config.getIgnore()).containsExactly(IllegalArgumentException.class);
				assertThat(config.getRetryOnResult()).isSameAs(context.getBean("emptyInventoryPredicate"));
				assertThat(config.getHttpStatus()).isEqualTo(StatusCodes.parse("429,500-599", StatusExtractor.Kind.HTTP));
				assertThat(config.getGrpcStatus()).isEqualTo(StatusCodes.parse("14", StatusExtractor.Kind.GRPC));
				assertThat(config.getDelayHint()).isSameAs(context.getBean(RetryAfterDelayHintExtractor.class));
				assertThat(config.getCircuitBreaker()).isEqualTo(CircuitBreakerConfig.builder()
					.trip("consecutiveFailures > 5").timeout(Duration.ofSeconds(30)).maxRequests(1).build());
				assertThat(config.getBudget()).isEqualTo(RetryBudgetConfig.builder().maxTokens(10).tokenRatio(0.1).build());
				assertThat(config.getBudgetName()).isEqualTo("shared-downstream");
				assertThat(registry.budget("shared-downstream")).isPresent();
				assertThat(registry.template("inventory").getContextCache().capacity()).isEqualTo(100);
			});
	}

	@Test
	void unsetValuesAreInheritedFromTheBaseConfigWhichInheritsFromTheDefaults() {
		this.runner.withPropertyValues("retry.defaults.max-attempts=5", "retry.defaults.backoff.jitter=0.25",
				"retry.configs.slow-backend.backoff.type=fixed", "retry.configs.slow-backend.backoff.delay=500ms",
				"retry.configs.slow-backend.circuit-breaker.enabled=true",
				"retry.configs.slow-backend.circuit-breaker.timeout=30s", "retry.instances.inventory.base-config=slow-backend",
				"retry.instances.inventory.backoff.max-delay=2s", "retry.instances.inventory.circuit-breaker.max-requests=3",
				"retry.instances.plain.max-attempts=2")
			.run(context -> {
				RetryRegistry registry = context.getBean(RetryRegistry.class);
				RetryConfig inventory = registry.template("inventory").getConfig();
				assertThat(inventory.getMaxAttempts()).isEqualTo(5);
				assertThat(inventory.getBackoff()).isEqualTo(BackoffPolicy.builder().type(BackoffType.FIXED)
					.delay(Duration.ofMillis(500)).maxDelay(Duration.ofSeconds(2)).jitter(0.25).build());
				assertThat(inventory.getCircuitBreaker()).isEqualTo(
						CircuitBreakerConfig.builder().timeout(Duration.ofSeconds(30)).maxRequests(3).build());
				RetryConfig plain = registry.template("plain").getConfig();
				assertThat(plain.getMaxAttempts()).isEqualTo(2);
				assertThat(plain.getBackoff()).isEqualTo(BackoffPolicy.builder().jitter(0.25).build());
				assertThat(plain.getCircuitBreaker()).isNull();
				assertThat(registry.template("undeclared").getConfig().getMaxAttempts()).isEqualTo(5);
			});
	}

	@Test
	void configsMayInheritFromOtherConfigs() {
		this.runner.withPropertyValues("retry.configs.base.max-attempts=6", "retry.configs.derived.base-config=base",
				"retry.configs.derived.backoff.type=none", "retry.instances.inventory.base-config=derived")
			.run(context -> {
				RetryConfig inventory = context.getBean(RetryRegistry.class).template("inventory").getConfig();
				assertThat(inventory.getMaxAttempts()).isEqualTo(6);
				assertThat(((BackoffPolicy) inventory.getBackoff()).getType()).isEqualTo(BackoffType.NONE);
			});
	}

	@Test
	void anInstanceCanSwitchOffTheCircuitBreakerAndBudgetOfItsBase() {
		this.runner.withPropertyValues("retry.configs.guarded.circuit-breaker.enabled=true",
				"retry.configs.guarded.budget.enabled=true", "retry.instances.free.base-config=guarded",
				"retry.instances.free.circuit-breaker.enabled=false", "retry.instances.free.budget.enabled=false")
			.run(context -> {
				RetryConfig free = context.getBean(RetryRegistry.class).template("free").getConfig();
				assertThat(free.getCircuitBreaker()).isNull();
				assertThat(free.getBudget()).isNull();
			});
	}

	@Test
	void settingAnythingInTheCircuitBreakerOrBudgetGroupEnablesItUnlessEnabledIsFalse() {
		this.runner.withPropertyValues("retry.instances.declared.circuit-breaker.trip=consecutiveFailures > 2",
				"retry.instances.declared.budget.max-tokens=5", "retry.instances.off.circuit-breaker.enabled=false",
				"retry.instances.off.circuit-breaker.timeout=30s", "retry.instances.off.budget.enabled=false",
				"retry.instances.off.budget.token-ratio=0.5", "retry.instances.plain.max-attempts=2")
			.run(context -> {
				RetryRegistry registry = context.getBean(RetryRegistry.class);
				RetryConfig declared = registry.template("declared").getConfig();
				assertThat(declared.getCircuitBreaker()).isNotNull();
				assertThat(declared.getCircuitBreaker().getTrip()).isEqualTo("consecutiveFailures > 2");
				assertThat(declared.getBudget()).isNotNull();
				assertThat(declared.getBudget().getMaxTokens()).isEqualTo(5);
				RetryConfig off = registry.template("off").getConfig();
				assertThat(off.getCircuitBreaker()).isNull();
				assertThat(off.getBudget()).isNull();
				RetryConfig plain = registry.template("plain").getConfig();
				assertThat(plain.getCircuitBreaker()).isNull();
				assertThat(plain.getBudget()).isNull();
			});
	}

	@Test
	void durationsAcceptBootFormsAndGoStyleCompoundDurations() {
		this.runner.withPropertyValues("retry.instances.a.max-duration=1h30m", "retry.instances.a.attempt-timeout=1m30s",
				"retry.instances.a.backoff.delay=200ms", "retry.instances.a.backoff.max-delay=PT2M",
				"retry.instances.a.circuit-breaker.enabled=true", "retry.instances.a.circuit-breaker.timeout=45000")
			.run(context -> {
				RetryConfig a = context.getBean(RetryRegistry.class).template("a").getConfig();
				assertThat(a.getMaxDuration()).isEqualTo(Duration.ofMinutes(90));
				assertThat(a.getAttemptTimeout()).isEqualTo(Duration.ofSeconds(90));
				assertThat(((BackoffPolicy) a.getBackoff()).getDelay()).isEqualTo(Duration.ofMillis(200));
				assertThat(((BackoffPolicy) a.getBackoff()).getMaxDelay()).isEqualTo(Duration.ofMinutes(2));
				assertThat(a.getCircuitBreaker().getTimeout()).isEqualTo(Duration.ofSeconds(45));
			});
	}

	@Test
	void delayHintNamesABeanAndCombinesWithRetryAfter() {
		DelayHintExtractor custom = failure -> (failure instanceof UncheckedIOException) ? Duration.ofSeconds(3) : null;
		this.runner.withBean("customHint", DelayHintExtractor.class, () -> custom)
			.withPropertyValues("retry.instances.a.delay-hint=customHint", "retry.instances.b.delay-hint=customHint",
					"retry.instances.b.honor-retry-after=true", "retry.defaults.honor-retry-after=true",
					"retry.instances.c.honor-retry-after=false")
			.run(context -> {
				RetryRegistry registry = context.getBean(RetryRegistry.class);
				DelayHintExtractor a = registry.template("a").getConfig().getDelayHint();
				assertThat(a.delayHint(new UncheckedIOException(new IOException()))).isEqualTo(Duration.ofSeconds(3));
				assertThat(a.delayHint(tooManyRequests("7"))).as("honor-retry-after inherited from the defaults")
					.isEqualTo(Duration.ofSeconds(7));
				DelayHintExtractor combined = registry.template("b").getConfig().getDelayHint();
				assertThat(combined.delayHint(new UncheckedIOException(new IOException()))).isEqualTo(Duration.ofSeconds(3));
				assertThat(combined.delayHint(new IllegalStateException())).isNull();
				assertThat(registry.template("c").getConfig().getDelayHint()).isNull();
				assertThat(registry.template("undeclared").getConfig().getDelayHint())
					.isSameAs(context.getBean(RetryAfterDelayHintExtractor.class));
			});
	}

	@Test
	void delayHintAndHonorRetryAfterAreInheritedEachOnItsOwn() {
		DelayHintExtractor custom = failure -> (failure instanceof UncheckedIOException) ? Duration.ofSeconds(3) : null;
		this.runner.withBean("customHint", DelayHintExtractor.class, () -> custom)
			.withPropertyValues("retry.configs.hinted.delay-hint=customHint", "retry.configs.hinted.max-attempts=2",
					"retry.configs.child.base-config=hinted", "retry.instances.y.base-config=child",
					"retry.instances.y.honor-retry-after=true", "retry.instances.z.base-config=hinted",
					"retry.instances.z.honor-retry-after=false", "retry.defaults.honor-retry-after=true",
					"retry.instances.w.base-config=hinted", "retry.instances.w.max-attempts=4")
			.run(context -> {
				RetryRegistry registry = context.getBean(RetryRegistry.class);
				DelayHintExtractor y = registry.template("y").getConfig().getDelayHint();
				assertThat(y.delayHint(new UncheckedIOException(new IOException()))).as("delay-hint inherited from a config")
					.isEqualTo(Duration.ofSeconds(3));
				assertThat(y.delayHint(tooManyRequests("7"))).isEqualTo(Duration.ofSeconds(7));
				assertThat(registry.template("z").getConfig().getDelayHint()).isSameAs(custom);
				DelayHintExtractor w = registry.template("w").getConfig().getDelayHint();
				assertThat(w.delayHint(new UncheckedIOException(new IOException()))).isEqualTo(Duration.ofSeconds(3));
				assertThat(w.delayHint(tooManyRequests("7"))).isEqualTo(Duration.ofSeconds(7));
			});
	}

	private static HttpClientErrorException tooManyRequests(String retryAfter) {
		HttpHeaders headers = new HttpHeaders();
		headers.set(HttpHeaders.RETRY_AFTER, retryAfter);
		return HttpClientErrorException.create(HttpStatus.TOO_MANY_REQUESTS, "Too Many Requests", headers, new byte[0],
				StandardCharsets.UTF_8);
	}

	@Test
	void statefulIsResolvedAlongTheInheritanceChain() {
		this.runner.withPropertyValues("retry.defaults.stateful=false", "retry.configs.tx.stateful=true",
				"retry.instances.orders.base-config=tx", "retry.instances.orders.max-attempts=2",
				"retry.instances.plain.max-attempts=2")
			.run(context -> {
				RetryRegistry registry = context.getBean(RetryRegistry.class);
				assertThat(registry.template("orders").getConfig().isStateful()).isTrue();
				assertThat(registry.template("plain").getConfig().isStateful()).isFalse();
				assertThat(registry.template("undeclared").getConfig().isStateful()).isFalse();
			});
		this.runner.withPropertyValues("retry.defaults.stateful=true")
			.run(context -> assertThat(context.getBean(RetryRegistry.class).template("undeclared").getConfig().isStateful())
				.isTrue());
	}

	@Test
	void compoundDurationsAreReadInRetryPropertiesOnlyNeverInTheApplicationsOwn() {
		Throwable[] withoutStarter = new Throwable[1];
		new ApplicationContextRunner().withUserConfiguration(AppSettingsConfiguration.class)
			.withPropertyValues("app.timeout=1m30s")
			.run(context -> withoutStarter[0] = context.getStartupFailure());
		assertThat(withoutStarter[0]).isNotNull();
		this.runner.withUserConfiguration(AppSettingsConfiguration.class)
			.withPropertyValues("app.timeout=1m30s", "retry.instances.x.max-duration=1m30s")
			.run(context -> {
				assertThat(context).hasFailed();
				assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
					.hasSameClassAs(NestedExceptionUtils.getMostSpecificCause(withoutStarter[0]))
					.hasMessage(NestedExceptionUtils.getMostSpecificCause(withoutStarter[0]).getMessage());
			});
		this.runner.withUserConfiguration(AppSettingsConfiguration.class)
			.withPropertyValues("app.timeout=90s", "retry.instances.x.max-duration=1m30s",
					"retry.instances.x.backoff.delay=1s500ms", "retry.timer.tick=1s5ms")
			.run(context -> {
				assertThat(context.getBean(AppSettings.class).getTimeout()).isEqualTo(Duration.ofSeconds(90));
				RetryConfig x = context.getBean(RetryRegistry.class).template("x").getConfig();
				assertThat(x.getMaxDuration()).isEqualTo(Duration.ofSeconds(90));
				assertThat(((BackoffPolicy) x.getBackoff()).getDelay()).isEqualTo(Duration.ofMillis(1500));
				assertThat(context.getBean(RetryProperties.class).getTimer().getTick()).isEqualTo(Duration.ofMillis(1005));
			});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableConfigurationProperties(AppSettings.class)
	static class AppSettingsConfiguration {

	}

	/** An application's own properties, which bind the same with the starter as without it. */
	@ConfigurationProperties("app")
	static class AppSettings {

		private Duration timeout = Duration.ofSeconds(1);

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

}
