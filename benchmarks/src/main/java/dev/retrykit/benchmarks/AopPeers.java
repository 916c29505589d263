package dev.retrykit.benchmarks;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import io.github.resilience4j.common.retry.configuration.CommonRetryConfigurationProperties;
import io.github.resilience4j.core.ContextAwareScheduledThreadPoolExecutor;
import io.github.resilience4j.spring6.fallback.configure.FallbackConfiguration;
import io.github.resilience4j.spring6.retry.configure.RetryConfiguration;
import io.github.resilience4j.spring6.retry.configure.RetryConfigurationProperties;
import io.github.resilience4j.spring6.spelresolver.configure.SpelResolverConfiguration;
import org.aopalliance.intercept.MethodInterceptor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.MapPropertySource;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.retry.annotation.Backoff;
import org.springframework.retry.annotation.EnableRetry;

/**
 * The peers' {@code @Retryable} through Spring AOP, for {@link AopBenchmark}: each library's application context,
 * started once per trial by its state's {@code @Setup}, with the bean measured and the bean that proves the library's
 * proxy really retries ({@link AopBenchmark#requireRetryingProxy}), each configured for 3 attempts and no delay.
 */
public final class AopPeers {

	private AopPeers() {
	}

	// ---------------------------------------------------------------- Spring Retry

	/** Spring Retry 2.0: {@code @EnableRetry}, which brings its own auto-proxy creator. */
	@State(Scope.Benchmark)
	public static class SpringRetryAop {

		AnnotationConfigApplicationContext context;

		SpringRetryService bean;

		@Setup
		public void start() {
			this.context = AopBenchmark.startContext(Map.of(), SpringRetryConfig.class);
			this.bean = this.context.getBean(SpringRetryService.class);
			SpringRetryCheck check = this.context.getBean(SpringRetryCheck.class);
			AopBenchmark.requireRetryingProxy("Spring Retry @Retryable", this.bean, check, check::run);
		}

		@TearDown
		public void stop() {
			this.context.close();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableRetry
	static class SpringRetryConfig {

		@Bean
		SpringRetryService springRetryService() {
			return new SpringRetryService();
		}

		@Bean
		SpringRetryCheck springRetryCheck() {
			return new SpringRetryCheck();
		}

	}

	public static class SpringRetryService {

		String payload = "ok";

		@org.springframework.retry.annotation.Retryable(maxAttempts = 3, backoff = @Backoff(0))
		public String call() {
			return this.payload;
		}

	}

	public static class SpringRetryCheck {

		@org.springframework.retry.annotation.Retryable(maxAttempts = 3, backoff = @Backoff(0))
		public String run(Callable<String> call) throws Exception {
			return call.call();
		}

	}

	// ---------------------------------------------------------------- Spring Framework 7

	/** Spring Framework 7: {@code @EnableResilientMethods} (not auto-enabled by Boot 4.1). */
	@State(Scope.Benchmark)
	public static class SpringFrameworkAop {

		AnnotationConfigApplicationContext context;

		SpringFrameworkService bean;

		@Setup
		public void start() {
			this.context = AopBenchmark.startContext(Map.of(), SpringFrameworkConfig.class);
			this.bean = this.context.getBean(SpringFrameworkService.class);
			SpringFrameworkCheck check = this.context.getBean(SpringFrameworkCheck.class);
			AopBenchmark.requireRetryingProxy("Spring Framework @Retryable", this.bean, check, check::run);
		}

		@TearDown
		public void stop() {
			this.context.close();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableResilientMethods
	static class SpringFrameworkConfig {

		@Bean
		SpringFrameworkService springFrameworkService() {
			return new SpringFrameworkService();
		}

		@Bean
		SpringFrameworkCheck springFrameworkCheck() {
			return new SpringFrameworkCheck();
		}

	}

	public static class SpringFrameworkService {

		String payload = "ok";

		/** Retries, not attempts: 1 + 2 = 3 attempts. */
		@org.springframework.resilience.annotation.Retryable(maxRetries = 2, delay = 0)
		public String call() {
			return this.payload;
		}

	}

	public static class SpringFrameworkCheck {

		@org.springframework.resilience.annotation.Retryable(maxRetries = 2, delay = 0)
		public String run(Callable<String> call) throws Exception {
			return call.call();
		}

	}

	// ---------------------------------------------------------------- Resilience4j

	/**
	 * Resilience4j's {@code @Retry} aspect (resilience4j-spring6, the configuration its Boot starter
	 * imports), with Boot's {@link AopAutoConfiguration} as the AspectJ auto-proxy creator.
	 */
	@State(Scope.Benchmark)
	public static class Resilience4jAop {

		AnnotationConfigApplicationContext context;

		Resilience4jService bean;

		@Setup
		public void start() {
			this.context = AopBenchmark.startContext(Map.of(), Resilience4jConfig.class);
			this.bean = this.context.getBean(Resilience4jService.class);
			Resilience4jCheck check = this.context.getBean(Resilience4jCheck.class);
			AopBenchmark.requireRetryingProxy("Resilience4j @Retry", this.bean, check, check::run);
		}

		@TearDown
		public void stop() {
			this.context.close();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(AopAutoConfiguration.class)
	@Import({ RetryConfiguration.class, FallbackConfiguration.class, SpelResolverConfiguration.class })
	static class Resilience4jConfig {

		/** 3 attempts, no wait; Resilience4j retries every exception by default. */
		@Bean
		RetryConfigurationProperties retryConfigurationProperties() {
			RetryConfigurationProperties properties = new RetryConfigurationProperties();
			properties.getInstances()
				.put(AopBenchmark.INSTANCE, new CommonRetryConfigurationProperties.InstanceProperties().setMaxAttempts(3)
					.setWaitDuration(Duration.ZERO));
			return properties;
		}

		/** The aspect's executor for async retries; unused by a synchronous method. */
		@Bean(destroyMethod = "shutdown")
		ContextAwareScheduledThreadPoolExecutor resilience4jScheduler() {
			return ContextAwareScheduledThreadPoolExecutor.newScheduledThreadPool().corePoolSize(1).build();
		}

		@Bean
		Resilience4jService resilience4jService() {
			return new Resilience4jService();
		}

		@Bean
		Resilience4jCheck resilience4jCheck() {
			return new Resilience4jCheck();
		}

	}

	public static class Resilience4jService {

		String payload = "ok";

		@io.github.resilience4j.retry.annotation.Retry(name = AopBenchmark.INSTANCE)
		public String call() {
			return this.payload;
		}

	}

	public static class Resilience4jCheck {

		@io.github.resilience4j.retry.annotation.Retry(name = AopBenchmark.INSTANCE)
		public String run(Callable<String> call) throws Exception {
			return call.call();
		}

	}

}
