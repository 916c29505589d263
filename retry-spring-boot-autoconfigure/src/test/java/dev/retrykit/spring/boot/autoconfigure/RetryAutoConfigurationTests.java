package dev.retrykit.spring.boot.autoconfigure;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryListener;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryTemplate;
import dev.retrykit.RetryTemplateCustomizer;
import dev.retrykit.VirtualTime;
import dev.retrykit.scheduler.TimingWheelScheduler;
import dev.retrykit.failback.FailbackExecutor;
import dev.retrykit.failback.FailbackListener;
import dev.retrykit.failback.FailbackTask;
import dev.retrykit.spi.RetryScheduler;
import dev.retrykit.spi.Sleeper;
import dev.retrykit.spi.TimeSource;
import dev.retrykit.spring.boot.http.RetryAfterDelayHintExtractor;
import dev.retrykit.spring.boot.http.SpringHttpStatusExtractor;
import dev.retrykit.spring.boot.convert.CompoundDurationConverter;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class));

	@Test
	void registersTheRegistryTimeAndTimerBeansByDefault() {
		this.runner.run(context -> {
			assertThat(context).hasSingleBean(RetryRegistry.class).hasSingleBean(RetryProperties.class);
			assertThat(context.getBean(Sleeper.class)).isSameAs(Sleeper.THREAD_SLEEP);
			assertThat(context.getBean(TimeSource.class)).isSameAs(TimeSource.SYSTEM);
			assertThat(context.getBean(RetryScheduler.class)).isInstanceOf(TimingWheelScheduler.class);
		});
	}

	@Test
	void registersOneTemplateBeanPerDeclaredInstanceNamedAfterIt() {
		this.runner.withPropertyValues("retry.instances.inventory.max-attempts=4", "retry.instances.payments.max-attempts=2")
			.run(context -> {
				RetryRegistry registry = context.getBean(RetryRegistry.class);
				assertThat(context.getBean("inventoryRetryTemplate")).isSameAs(registry.template("inventory"));
				assertThat(context.getBean("paymentsRetryTemplate", RetryTemplate.class).getConfig().getMaxAttempts()).isEqualTo(2);
				assertThat(context.getBeansOfType(RetryTemplate.class)).containsOnlyKeys("inventoryRetryTemplate",
						"paymentsRetryTemplate");
			});
	}

	@Test
	void aTemplateBeanDefinedByTheApplicationWinsOverTheDeclaredOne() {
		this.runner.withPropertyValues("retry.instances.inventory.max-attempts=4")
			.withBean("inventoryRetryTemplate", RetryTemplate.class, () -> RetryTemplate.builder().name("mine").build())
			.run(context -> assertThat(context.getBean("inventoryRetryTemplate", RetryTemplate.class).getName())
				.isEqualTo("mine"));
	}

	@Test
	void retryEnabledFalseSwitchesEverythingOff() {
		this.runner.withPropertyValues("retry.enabled=false", "retry.instances.inventory.max-attempts=4").run(context -> {
			assertThat(context).doesNotHaveBean(RetryRegistry.class)
				.doesNotHaveBean(RetryProperties.class)
				.doesNotHaveBean(RetryScheduler.class)
				.doesNotHaveBean(Sleeper.class)
				.doesNotHaveBean("inventoryRetryTemplate")
				.doesNotHaveBean(CompoundDurationConverter.class);
		});
	}

	@Test
	void backsOffWhenTheApplicationDefinesItsOwnBeans() {
		RetryRegistry mine = RetryRegistry.ofDefaults();
		this.runner.withBean(RetryRegistry.class, () -> mine).run(context -> {
			assertThat(context.getBean(RetryRegistry.class)).isSameAs(mine);
		});
	}

	@Test
	void aVirtualTimeBeanReplacesTheSleeperTheTimeSourceAndTheScheduler() {
		VirtualTime time = new VirtualTime();
		this.runner.withBean(VirtualTime.class, () -> time)
			.withPropertyValues("retry.instances.inventory.backoff.delay=100ms")
			.run(context -> {
				assertThat(context).doesNotHaveBean(TimingWheelScheduler.class);
				assertThat(context.getBean(RetryScheduler.class)).isSameAs(time);
				RetryTemplate inventory = context.getBean("inventoryRetryTemplate", RetryTemplate.class);
				assertThatThrownBy(() -> inventory.execute(ctx -> {
					throw new IOException("down");
				})).isInstanceOf(IOException.class);
				assertThat(time.sleeps()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
			});
	}

	@Test
	void theTimerIsConfiguredFromPropertiesAndStoppedWhenTheContextCloses() {
		TimingWheelScheduler[] timer = new TimingWheelScheduler[1];
		this.runner.withPropertyValues("retry.timer.tick=5ms", "retry.timer.wheel-size=100").run(context -> {
			timer[0] = context.getBean(TimingWheelScheduler.class);
			assertThat(timer[0].tick()).isEqualTo(Duration.ofMillis(5));
			assertThat(timer[0].wheelSize()).isEqualTo(128);
			assertThat(timer[0].isStopped()).isFalse();
		});
		assertThat(timer[0].isStopped()).isTrue();
	}

	@Test
	void pendingAsyncRetriesCompleteWhenTheContextClosesAndStopsTheTimer() {
		IOException down = new IOException("downstream down");
		List<CompletableFuture<String>> calls = new ArrayList<>();
		this.runner.withPropertyValues("retry.instances.inventory.backoff.type=fixed",
				"retry.instances.inventory.backoff.delay=1h", "retry.instances.inventory.backoff.max-delay=1h")
			.run(context -> {
				RetryTemplate inventory = context.getBean("inventoryRetryTemplate", RetryTemplate.class);
				calls.add(inventory.executeAsync(() -> CompletableFuture.failedFuture(down)));
				assertThat(calls.get(0)).isNotDone();
			});
		assertThat(calls.get(0)).isCompletedExceptionally();
		assertThatThrownBy(calls.get(0)::join).cause().isInstanceOf(RejectedExecutionException.class)
			.hasMessageContaining("could not wait for attempt 2").hasMessageContaining("stopped").hasCause(down);
	}

	@Test
	void pendingFailbackTasksAreShutDownAndLoggedWithTheirKeysWhenTheContextCloses() {
		VirtualTime time = new VirtualTime();
		FailbackExecutor[] audit = new FailbackExecutor[1];
		// The log is the behaviour under test: captured here, kept off the console.
		Logger logger = Logger.getLogger(FailbackExecutor.class.getName());
		Level level = logger.getLevel();
		List<LogRecord> logged = new CopyOnWriteArrayList<>();
		Handler capture = new Handler() {
			@Override
			public void publish(LogRecord log) {
				logged.add(log);
			}

			@Override
			public void flush() {
			}

			@Override
			public void close() {
			}
		};
		logger.setLevel(Level.WARNING);
		logger.setUseParentHandlers(false);
		logger.addHandler(capture);
		try {
			this.runner.withBean(VirtualTime.class, () -> time).run(context -> {
				audit[0] = context.getBean(RetryRegistry.class).failback("audit");
				audit[0].submit("event-1", () -> {
					throw new IllegalStateException("downstream down");
				});
				assertThat(audit[0].pendingCount()).isEqualTo(1);
			});
		}
		finally {
			logger.removeHandler(capture);
			logger.setUseParentHandlers(true);
			logger.setLevel(level);
		}
		assertThat(audit[0].isShutdown()).isTrue();
		assertThat(audit[0].pendingCount()).isZero();
		assertThat(time.pendingTasks()).isZero();
		assertThat(logged).singleElement().satisfies(log -> {
			assertThat(log.getLevel()).isEqualTo(Level.WARNING);
			assertThat(new SimpleFormatter().formatMessage(log)).contains("'audit'").contains("event-1");
		});
	}

	@Test
	void everyFailbackListenerBeanIsToldAboutEveryFailbackExecutor() {
		VirtualTime time = new VirtualTime();
		List<String> seen = new ArrayList<>();
		FailbackListener listener = new FailbackListener() {
			@Override
			public void onQueued(String name, FailbackTask task) {
				seen.add("queued " + name + " " + task.key());
			}

			@Override
			public void onSucceeded(String name, FailbackTask task) {
				seen.add("succeeded " + name + " " + task.key());
			}
		};
		this.runner.withBean(VirtualTime.class, () -> time).withBean(FailbackListener.class, () -> listener)
			.withPropertyValues("retry.instances.audit.backoff.type=fixed", "retry.instances.audit.backoff.delay=1s")
			.run(context -> {
				boolean[] down = { true };
				context.getBean(RetryRegistry.class).failback("audit").submit("event-1", () -> {
					if (down[0]) {
						throw new IllegalStateException("downstream down");
					}
				});
				down[0] = false;
				time.advance(Duration.ofSeconds(1));
				assertThat(seen).containsExactly("queued audit event-1", "succeeded audit event-1");
			});
	}

	@Test
	void everyListenerBeanIsAppliedToEveryInstance() {
		this.runner.withUserConfiguration(ListenerConfiguration.class)
			.withPropertyValues("retry.instances.inventory.backoff.type=none")
			.run(context -> {
				RetryRegistry registry = context.getBean(RetryRegistry.class);
				registry.template("inventory").execute(ctx -> "ok");
				registry.template("undeclared").execute(ctx -> "ok");
				assertThat(context.getBean(ListenerConfiguration.class).opened).containsExactly("inventory", "undeclared");
			});
	}

	@Test
	void customizerBeansApplyToTheInstancesTheySelect() {
		this.runner.withBean("inventoryCustomizer", RetryTemplateCustomizer.class,
				() -> RetryTemplateCustomizer.forInstance("inventory", builder -> builder.maxAttempts(7)))
			.withPropertyValues("retry.instances.inventory.max-attempts=2", "retry.instances.payments.max-attempts=2")
			.run(context -> {
				assertThat(context.getBean("inventoryRetryTemplate", RetryTemplate.class).getConfig().getMaxAttempts())
					.isEqualTo(7);
				assertThat(context.getBean("paymentsRetryTemplate", RetryTemplate.class).getConfig().getMaxAttempts())
					.isEqualTo(2);
			});
	}

	@Test
	void springHttpIntegrationIsPresentWithSpringWeb() {
		this.runner.run(context -> assertThat(context).hasSingleBean(SpringHttpStatusExtractor.class)
			.hasSingleBean(RetryAfterDelayHintExtractor.class));
	}

	@Test
	void springHttpIntegrationBacksOffWithoutSpringWeb() {
		this.runner.withClassLoader(new FilteredClassLoader("org.springframework.web"))
			.run(context -> assertThat(context).hasSingleBean(RetryRegistry.class)
				.doesNotHaveBean(SpringHttpStatusExtractor.class)
				.doesNotHaveBean(RetryAfterDelayHintExtractor.class));
	}

	@Test
	void theHttpStatusExtractorIsAddedToEveryInstance() {
		this.runner.withPropertyValues("retry.instances.inventory.max-attempts=2").run(context -> {
			RetryRegistry registry = context.getBean(RetryRegistry.class);
			SpringHttpStatusExtractor extractor = context.getBean(SpringHttpStatusExtractor.class);
			assertThat(registry.template("inventory").getConfig().getStatusExtractors()).containsExactly(extractor);
			assertThat(registry.template("other").getConfig().getStatusExtractors()).containsExactly(extractor);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class ListenerConfiguration {

		final List<String> opened = new ArrayList<>();

		@Bean
		RetryListener recordingListener() {
			return new RetryListener() {
				@Override
				public boolean open(RetryContext context) {
					ListenerConfiguration.this.opened.add(context.getName());
					return true;
				}
			};
		}

	}

}
