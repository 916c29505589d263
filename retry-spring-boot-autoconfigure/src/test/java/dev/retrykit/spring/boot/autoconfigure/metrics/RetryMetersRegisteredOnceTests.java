package dev.retrykit.spring.boot.autoconfigure.metrics;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.retrykit.RetryRegistry;
import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each instance's meters are registered once in an application: declared instances, instances first used at run
 * time and the variants that methods with inline attributes run on. Micrometer ignores a second registration of
 * a function counter or gauge and says so in its log (at WARN the first time in a JVM, at DEBUG after): that
 * log is what these tests watch.
 */
class RetryMetersRegisteredOnceTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
				CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
				AopAutoConfiguration.class, RetryAutoConfiguration.class, RetryMetricsAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new)
		.withBean(Search.class, Search::new)
		.withPropertyValues("retry.instances.search.max-attempts=2", "retry.instances.search.budget.enabled=true");

	private final Logger micrometer = (Logger) LoggerFactory.getLogger(MeterRegistry.class);

	private final ListAppender<ILoggingEvent> log = new ListAppender<>();

	private Level level;

	@BeforeEach
	void watchMicrometersLog() {
		this.level = this.micrometer.getLevel();
		this.micrometer.setLevel(Level.DEBUG);
		this.log.start();
		this.micrometer.addAppender(this.log);
	}

	@AfterEach
	void stopWatching() {
		this.micrometer.detachAppender(this.log);
		this.micrometer.setLevel(this.level);
	}

	@Test
	void declaredRunTimeAndInlineVariantInstancesAreEachRegisteredOnce() {
		this.runner.run(context -> {
			Search search = context.getBean(Search.class);
			search.plain();
			search.inline();
			RetryRegistry registry = context.getBean(RetryRegistry.class);
			registry.template("late").execute(retryContext -> "first use at run time");
			registry.failback("later").submit("k", () -> { });
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.find("retry.calls").tag("name", "search").functionCounters()).hasSize(4);
			assertThat(meters.find("retry.calls").tag("name", "late").functionCounters()).hasSize(4);
			assertThat(meters.find("retry.calls").tag("name", "later").functionCounters()).hasSize(4);
			assertThat(meters.get("retry.calls").tag("name", "search").tag("kind", "successful_without_retry")
				.functionCounter().count()).isEqualTo(2);
		});
		assertThat(this.log.list).extracting(ILoggingEvent::getFormattedMessage)
			.noneMatch(message -> message.contains("already registered"));
	}

	static class Search {

		@Retryable("search")
		public String plain() {
			return "plain";
		}

		@Retryable(value = "search", maxAttempts = 3)
		public String inline() {
			return "inline";
		}

	}

}
