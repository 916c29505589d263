package dev.retrykit.spring.boot.autoconfigure;

import java.util.concurrent.Executor;

import dev.retrykit.RetryListener;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryRegistryBuilder;
import dev.retrykit.RetryTemplateCustomizer;
import dev.retrykit.scheduler.TimingWheelScheduler;
import dev.retrykit.scheduler.TimingWheelSchedulerBuilder;
import dev.retrykit.failback.FailbackListener;
import dev.retrykit.spi.RetryScheduler;
import dev.retrykit.spi.Sleeper;
import dev.retrykit.spi.StatusExtractor;
import dev.retrykit.spi.TimeSource;
import dev.retrykit.spring.boot.aop.MethodListeners;
import dev.retrykit.spring.boot.http.RetryAfterDelayHintExtractor;
import dev.retrykit.spring.boot.http.SpringHttpStatusExtractor;
import dev.retrykit.spring.boot.convert.CompoundDurationConverter;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.ConfigurationPropertiesBinding;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Auto-configures retrykit: a {@link RetryRegistry} built from the {@code retry.*} properties, a
 * {@code <name>RetryTemplate} bean per declared instance, the sleeper, time source and timing wheel,
 * and the {@code @Retryable} aspect. Every {@link RetryListener} bean is applied to every instance (through
 * {@link MethodListeners}, so that a {@code @Retryable} method may choose its own), every
 * {@link FailbackListener} bean to every failback executor, and every {@link RetryTemplateCustomizer}
 * bean to the instances it selects. Each bean backs off when the
 * application defines its own; {@code retry.enabled=false} switches everything off.
 *
 * <p>The timing wheel hands due retries and failback attempts to the application's task executor: the
 * {@code applicationTaskExecutor} bean (Boot's, on virtual threads with
 * {@code spring.threads.virtual.enabled=true}), or else the application's only {@link Executor} bean;
 * an application with neither gets a small pool the starter owns (threads {@code retry-attempt-N}), shut
 * down with the context: never {@code ForkJoinPool.commonPool()}.
 *
 * <p>Tests provide a {@code dev.retrykit.VirtualTime} bean: it is a {@link Sleeper}, a
 * {@link TimeSource} and a {@link RetryScheduler}, so it replaces all three and backoff runs in
 * virtual time.
 */
@AutoConfiguration(afterName = "org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration")
@Conditional(OnRetryEnabledCondition.class)
@EnableConfigurationProperties(RetryProperties.class)
@Import({ RetryTemplateBeansRegistrar.class, RetryAspectConfiguration.class })
public final class RetryAutoConfiguration {

	/** The name of Boot's task executor bean. */
	static final String APPLICATION_TASK_EXECUTOR = "applicationTaskExecutor";

	@Bean
	@ConfigurationPropertiesBinding
	@ConditionalOnMissingBean
	static CompoundDurationConverter retryCompoundDurationConverter() {
		return new CompoundDurationConverter();
	}

	/** Validates {@code retry.*} before any bean is created, so that the failure analysis comes first. */
	@Bean
	static RetryPropertiesValidator retryPropertiesValidator(ConfigurableEnvironment environment) {
		return new RetryPropertiesValidator(environment);
	}

	@Bean
	@ConditionalOnMissingBean
	Sleeper retrySleeper() {
		return Sleeper.THREAD_SLEEP;
	}

	@Bean
	@ConditionalOnMissingBean
	TimeSource retryTimeSource() {
		return TimeSource.SYSTEM;
	}

	@Bean(destroyMethod = "close")
	FallbackTaskExecutor retryFallbackTaskExecutor() {
		return new FallbackTaskExecutor();
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean(RetryScheduler.class)
	TimingWheelScheduler retryScheduler(RetryProperties properties, TimeSource timeSource,
			FallbackTaskExecutor fallbackTaskExecutor, ConfigurableListableBeanFactory beanFactory) {
		TimingWheelSchedulerBuilder builder = TimingWheelScheduler.builder().timeSource(timeSource);
		String executor = taskExecutorName(beanFactory);
		if (executor != null) {
			// Destroyed after the wheel, so that no due task is handed to a stopped executor.
			beanFactory.registerDependentBean(executor, "retryScheduler");
			builder.executor(beanFactory.getBean(executor, Executor.class));
		}
		else {
			// Never the wheel's default, the common pool; destroyed after the wheel, as it is a dependency.
			builder.executor(fallbackTaskExecutor.executor());
		}
		RetryPropertiesMapper.set("retry.timer.tick", properties.getTimer().getTick(), builder::tick);
		RetryPropertiesMapper.set("retry.timer.wheel-size", properties.getTimer().getWheelSize(), builder::wheelSize);
		return builder.build();
	}

	private static @Nullable String taskExecutorName(ConfigurableListableBeanFactory beanFactory) {
		if (beanFactory.containsBean(APPLICATION_TASK_EXECUTOR)) {
			return APPLICATION_TASK_EXECUTOR;
		}
		String[] executors = beanFactory.getBeanNamesForType(Executor.class, false, false);
		return (executors.length == 1) ? executors[0] : null;
	}

	/**
	 * The registry. On context close its failback executors shut down first (the registry depends on
	 * the timer, so it is destroyed before it): tasks still pending are logged with their keys, never
	 * dropped silently.
	 */
	@Bean(destroyMethod = "shutdownFailbacks")
	@ConditionalOnMissingBean
	RetryRegistry retryRegistry(RetryProperties properties, Sleeper sleeper, TimeSource timeSource, RetryScheduler scheduler,
			MethodListeners listeners, ObjectProvider<FailbackListener> failbackListeners,
			ObjectProvider<RetryTemplateCustomizer> customizers, ObjectProvider<StatusExtractor> statusExtractors,
			ObjectProvider<RetryAfterDelayHintExtractor> retryAfter, ConfigurableListableBeanFactory beanFactory) {
		RetryRegistryBuilder builder = RetryRegistry.builder().sleeper(sleeper).timeSource(timeSource)
			.scheduler(scheduler);
		// A method that names its own listeners runs on a variant of its instance with those instead.
		listeners.global().forEach(builder::listener);
		failbackListeners.orderedStream().forEach(builder::failbackListener);
		customizers.orderedStream().forEach(builder::customizer);
		new RetryPropertiesMapper(beanFactory, beanFactory.getBeanClassLoader(), statusExtractors.orderedStream().toList(),
				retryAfter.getIfAvailable()).applyTo(properties, builder);
		return RetryRegistryFactory.build(builder);
	}

	/** Applies changes of {@code retry.*} to the running registry; see {@link RetryReconfigurer}. */
	@Bean
	@ConditionalOnMissingBean
	RetryReconfigurer retryReconfigurer(RetryRegistry registry, ConfigurableEnvironment environment,
			ConfigurableListableBeanFactory beanFactory, ObjectProvider<StatusExtractor> statusExtractors,
			ObjectProvider<RetryAfterDelayHintExtractor> retryAfter) {
		RetryReconfigurer reconfigurer = new RetryReconfigurer(registry, environment, beanFactory,
				statusExtractors.orderedStream().toList(), retryAfter.getIfAvailable());
		reconfigurer.recordStartupConfiguration();
		return reconfigurer;
	}

	/** Spring Cloud's refresh (config server, Kubernetes config maps): a changed {@code retry.} key reconfigures. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = RetryEnvironmentChangeListener.EVENT)
	static class SpringCloudRefreshConfiguration {

		@Bean
		static RetryEnvironmentChangeListener retryEnvironmentChangeListener(
				ObjectProvider<RetryReconfigurer> reconfigurer) {
			return new RetryEnvironmentChangeListener(reconfigurer);
		}

	}

	/** Spring's HTTP client exceptions: their status codes and {@code Retry-After} headers. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.web.client.RestClientResponseException")
	static class HttpClientConfiguration {

		@Bean
		@ConditionalOnMissingBean
		SpringHttpStatusExtractor springHttpStatusExtractor(ConfigurableListableBeanFactory beanFactory) {
			return new SpringHttpStatusExtractor(beanFactory.getBeanClassLoader());
		}

		@Bean
		@ConditionalOnMissingBean
		RetryAfterDelayHintExtractor retryAfterDelayHintExtractor(ConfigurableListableBeanFactory beanFactory,
				TimeSource timeSource) {
			return new RetryAfterDelayHintExtractor(beanFactory.getBeanClassLoader(), timeSource);
		}

	}

}
