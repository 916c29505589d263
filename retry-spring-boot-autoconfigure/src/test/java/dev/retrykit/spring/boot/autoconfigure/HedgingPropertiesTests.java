package dev.retrykit.spring.boot.autoconfigure;

import java.time.Duration;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryRegistry;
import dev.retrykit.hedging.HedgingConfig;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static dev.retrykit.spring.boot.autoconfigure.RetryFailureAnalysisTests.analysis;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code retry.instances.<name>.hedging.*}: mapped to the core's policy, inherited, and validated at startup. */
class HedgingPropertiesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class));

	private static RetryConfig config(org.springframework.context.ApplicationContext context, String name) {
		return context.getBean(RetryRegistry.class).template(name).getConfig();
	}

	@Test
	void aFixedDelayAndAnAdaptiveDelayAreMapped() {
		this.runner.withPropertyValues("retry.instances.search.hedging.enabled=true",
				"retry.instances.search.hedging.delay=10ms", "retry.instances.lookup.hedging.enabled=true",
				"retry.instances.lookup.hedging.quantile=0.98", "retry.instances.lookup.hedging.min-delay=2ms",
				"retry.instances.lookup.hedging.max-delay=500ms").run(context -> {
					assertThat(config(context, "search").getHedging())
						.isEqualTo(HedgingConfig.builder().delay(Duration.ofMillis(10)).build());
					assertThat(config(context, "lookup").getHedging()).isEqualTo(HedgingConfig.builder().quantile(0.98)
						.minDelay(Duration.ofMillis(2)).maxDelay(Duration.ofMillis(500)).build());
					assertThat(context.getBean(RetryRegistry.class).template("lookup").getHedgingDelay())
						.isEqualTo(Duration.ofMillis(500));
				});
	}

	@Test
	void hedgingIsOffUntilEnabledAndIsInheritedFromAConfig() {
		this.runner.withPropertyValues("retry.instances.quiet.hedging.delay=10ms",
				"retry.configs.fast.hedging.enabled=true", "retry.configs.fast.hedging.delay=adaptive",
				"retry.instances.search.base-config=fast", "retry.instances.search.hedging.quantile=0.9",
				"retry.instances.plain.base-config=fast", "retry.instances.plain.hedging.enabled=false").run(context -> {
					assertThat(config(context, "quiet").isHedging()).isFalse();
					assertThat(config(context, "search").isHedging()).isTrue();
					assertThat(config(context, "search").getHedging().getQuantile()).isEqualTo(0.9);
					assertThat(config(context, "plain").isHedging()).isFalse();
					assertThat(config(context, "unnamed").isHedging()).isFalse();
				});
	}

	@Test
	void anInvalidQuantileFailsStartupNamingThePropertyTheValueAndTheRule() {
		this.runner.withPropertyValues("retry.instances.search.hedging.quantile=1.5").run(context -> {
			FailureAnalysis analysis = analysis(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("'retry.instances.search.hedging.quantile'", "'1.5'",
					"greater than 0 and less than 1");
		});
	}

	@Test
	void aDelayThatIsNeitherAdaptiveNorADurationFailsStartup() {
		this.runner.withPropertyValues("retry.instances.search.hedging.delay=soon").run(context -> {
			FailureAnalysis analysis = analysis(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("'retry.instances.search.hedging.delay'", "'soon'", "adaptive");
		});
	}

	@Test
	void aMinDelayAboveTheMaxDelayFailsStartup() {
		this.runner.withPropertyValues("retry.instances.search.hedging.min-delay=2s",
				"retry.instances.search.hedging.max-delay=1s").run(context -> {
					FailureAnalysis analysis = analysis(context.getStartupFailure());
					assertThat(analysis.getDescription()).contains("'retry.instances.search.hedging.min-delay'", "'2s'",
							"maxDelay (1s)");
				});
	}

	@Test
	void aStatefulInstanceThatHedgesFailsStartup() {
		this.runner.withPropertyValues("retry.instances.orders.stateful=true",
				"retry.instances.orders.hedging.enabled=true").run(context -> {
					FailureAnalysis analysis = analysis(context.getStartupFailure());
					assertThat(analysis.getDescription()).contains("'retry.instances.orders.hedging.enabled'", "stateful");
					assertThat(analysis.getAction()).contains("retry.instances.orders.stateful");
				});
	}

	@Test
	void unlimitedAttemptsWithHedgingFailStartup() {
		this.runner.withPropertyValues("retry.instances.search.max-attempts=-1",
				"retry.instances.search.hedging.enabled=true").run(context -> {
					FailureAnalysis analysis = analysis(context.getStartupFailure());
					assertThat(analysis.getDescription()).contains("'retry.instances.search.max-attempts'", "'-1'");
				});
	}

	@Test
	void anExecutorThatIsNoBeanFailsStartup() {
		this.runner.withPropertyValues("retry.instances.search.hedging.executor=copies").run(context -> {
			FailureAnalysis analysis = analysis(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("'retry.instances.search.hedging.executor'", "'copies'");
		});
	}

	@Test
	void theExecutorBeanIsMappedInheritedAndClearedByAnEmptyName() {
		java.util.concurrent.Executor copies = Runnable::run;
		this.runner.withBean("copies", java.util.concurrent.Executor.class, () -> copies)
			.withPropertyValues("retry.configs.fast.hedging.enabled=true", "retry.configs.fast.hedging.delay=10ms",
					"retry.configs.fast.hedging.executor=copies", "retry.instances.search.base-config=fast",
					"retry.instances.plain.base-config=fast", "retry.instances.plain.hedging.executor=")
			.run(context -> {
				assertThat(config(context, "search").getHedging().getExecutor()).isSameAs(copies);
				assertThat(config(context, "plain").getHedging().getExecutor()).isNull();
			});
	}

	@Test
	void maxExtraLoadAndInterruptLosersAreMapped() {
		this.runner.withPropertyValues("retry.instances.search.hedging.enabled=true",
				"retry.instances.search.hedging.delay=10ms", "retry.instances.search.hedging.max-extra-load=0.25",
				"retry.instances.search.hedging.interrupt-losers=true").run(context -> {
					HedgingConfig hedging = config(context, "search").getHedging();
					assertThat(hedging.getMaxExtraLoad()).isEqualTo(0.25);
					assertThat(hedging.isInterruptLosers()).isTrue();
					assertThat(HedgingConfig.builder().build().getMaxExtraLoad()).isEqualTo(0.1);
				});
	}

	@Test
	void aZeroDelayWithoutRoomInMaxExtraLoadFailsStartupNamingBoth() {
		this.runner.withPropertyValues("retry.instances.search.hedging.enabled=true",
				"retry.instances.search.hedging.delay=0", "retry.instances.search.max-attempts=3").run(context -> {
					FailureAnalysis analysis = analysis(context.getStartupFailure());
					assertThat(analysis.getDescription()).contains("'retry.instances.search.hedging.max-extra-load'",
							"'0.1'", "retry.instances.search.max-attempts");
					assertThat(analysis.getAction()).contains("retry.instances.search.hedging.max-extra-load",
							"retry.instances.search.max-attempts");
				});
	}

	@Test
	void moreThanTenCopiesFailStartupNamingMaxAttempts() {
		this.runner.withPropertyValues("retry.instances.search.max-attempts=11",
				"retry.instances.search.hedging.enabled=true").run(context -> {
					FailureAnalysis analysis = analysis(context.getStartupFailure());
					assertThat(analysis.getDescription()).contains("'retry.instances.search.max-attempts'", "'11'",
							"from 1 to 10");
				});
	}

	@Test
	void anExecutorThatRunsRefusedCopiesOnTheCallerFailsStartupNamingIt() {
		java.util.concurrent.ThreadPoolExecutor pool = new java.util.concurrent.ThreadPoolExecutor(1, 1, 0,
				java.util.concurrent.TimeUnit.SECONDS, new java.util.concurrent.LinkedBlockingQueue<>(1),
				new java.util.concurrent.ThreadPoolExecutor.CallerRunsPolicy());
		try {
			this.runner.withBean("copies", java.util.concurrent.Executor.class, () -> pool)
				.withPropertyValues("retry.instances.search.hedging.enabled=true",
						"retry.instances.search.hedging.executor=copies")
				.run(context -> {
					FailureAnalysis analysis = analysis(context.getStartupFailure());
					assertThat(analysis.getDescription()).contains("'retry.instances.search.hedging.executor'", "'copies'",
							"CallerRunsPolicy");
				});
		}
		finally {
			pool.shutdownNow();
		}
	}

}
