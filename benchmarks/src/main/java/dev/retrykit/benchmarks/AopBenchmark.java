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
 * {@code @Retryable} through Spring AOP: a proxied bean method that returns a field, whose first
 * attempt succeeds, configured for 3 attempts and no delay in each library; next to the floor, the same
 * kind of proxy (CGLIB) with a no-op {@link MethodInterceptor}, and a direct call.
 *
 * <p>Each library runs in its own application context, started once per trial by its state's
 * {@code @Setup}, which also proves that the library's proxy really retries: a second bean of the
 * library's, annotated the same way, must make a call that fails twice succeed on attempt 3; and the
 * measured bean must be a proxy carrying the same advisor. Every bean here is a class without
 * interfaces, so every proxy is a CGLIB subclass.
 *
 * <p>Two floors. {@code baselineNoOpInterceptorProxy} is a {@link ProxyFactory} proxy in a JVM that
 * never starts an application context. {@code baselineNoOpAdvisorInContext} is the proxy a user's bean
 * gets: made by the same auto-proxy creator, in an application context started exactly as retrykit's
 * (the same auto-configurations, properties and self-check), with one no-op advisor instead of
 * retrykit's. The difference between the two floors is what running in an application context costs
 * the same kind of proxy; the difference between the second floor and {@code retrykit} is retrykit's
 * own work.
 *
 * <p>Five forks, not two: how the JIT compiles a proxied call (which of the proxy's frames it inlines
 * into which) differs from one JVM to the next, and on a 2-core machine the floor alone measured
 * 35–47 ns across six forks, so two forks could not tell a 1.3× ratio from 1.4×.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(5)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class AopBenchmark {

	/** Instance name of retrykit's and Resilience4j's configurations. */
	static final String INSTANCE = "bench";

	/** retrykit's instance: 3 attempts, no delay. */
	static final Map<String, Object> RETRYKIT_PROPERTIES = Map.of("retry.instances." + INSTANCE + ".max-attempts", "3",
			"retry.instances." + INSTANCE + ".backoff.type", "none");

	@Benchmark
	public void baselineDirectCall(Floor floor, Blackhole bh) {
		bh.consume(floor.direct.call());
	}

	@Benchmark
	public void baselineNoOpInterceptorProxy(Floor floor, Blackhole bh) {
		bh.consume(floor.proxy.call());
	}

	@Benchmark
	public void baselineNoOpAdvisorInContext(FloorInContext floor, Blackhole bh) {
		bh.consume(floor.bean.call());
	}

	@Benchmark
	public void retrykit(RetrykitAop aop, Blackhole bh) {
		bh.consume(aop.bean.call());
	}

	@Benchmark
	public void springRetry(AopPeers.SpringRetryAop aop, Blackhole bh) {
		bh.consume(aop.bean.call());
	}

	@Benchmark
	public void springFramework(AopPeers.SpringFrameworkAop aop, Blackhole bh) {
		bh.consume(aop.bean.call());
	}

	@Benchmark
	public void resilience4j(AopPeers.Resilience4jAop aop, Blackhole bh) {
		bh.consume(aop.bean.call());
	}

	// ---------------------------------------------------------------- the floor

	/** A plain bean, called directly and through a {@link ProxyFactory} CGLIB proxy with a no-op interceptor. */
	@State(Scope.Benchmark)
	public static class Floor {

		final PlainService direct = new PlainService();

		PlainService proxy;

		@Setup
		public void createProxy() {
			ProxyFactory factory = new ProxyFactory(new PlainService());
			factory.setProxyTargetClass(true);
			factory.addAdvice((MethodInterceptor) invocation -> invocation.proceed());
			this.proxy = (PlainService) factory.getProxy();
			if (!AopUtils.isCglibProxy(this.proxy) || !"ok".equals(this.proxy.call())) {
				throw new IllegalStateException("The no-op interceptor proxy is not a working CGLIB proxy: " + this.proxy);
			}
		}

	}

	/**
	 * The second floor: a no-op advisor on a bean of retrykit's application context, which starts and
	 * self-checks as {@link RetrykitAop}'s does.
	 */
	@State(Scope.Benchmark)
	public static class FloorInContext {

		AnnotationConfigApplicationContext context;

		NoOpAdvisedService bean;

		@Setup
		public void start() {
			this.context = startContext(RETRYKIT_PROPERTIES, NoOpAdvisorConfig.class);
			this.bean = this.context.getBean(NoOpAdvisedService.class);
			RetrykitCheck check = this.context.getBean(RetrykitCheck.class);
			SelfCheck.requireThreeAttempts("retrykit @Retryable (the no-op advisor's context)", check::run);
			List<Class<?>> advisors = advisorTypes(this.bean);
			if (!AopUtils.isCglibProxy(this.bean) || !advisors.equals(List.of(DefaultPointcutAdvisor.class))
					|| !"ok".equals(this.bean.call())) {
				throw new IllegalStateException("The no-op advisor's bean is not a working CGLIB proxy with that advisor only: "
						+ this.bean.getClass() + ", " + advisors);
			}
		}

		@TearDown
		public void stop() {
			this.context.close();
		}

	}

	/** Marks the methods that the second floor's no-op advisor applies to. */
	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.METHOD)
	public @interface NoOpAdvised {
	}

	/** The second floor's bean. */
	public static class NoOpAdvisedService {

		String payload = "ok";

		@NoOpAdvised
		public String call() {
			return this.payload;
		}

	}

	/** retrykit's configuration ({@link RetrykitConfig}), its beans included, and a no-op advisor's bean. */
	@Configuration(proxyBeanMethods = false)
	@Import(RetrykitConfig.class)
	static class NoOpAdvisorConfig {

		@Bean
		static DefaultPointcutAdvisor noOpAdvisor() {
			return new DefaultPointcutAdvisor(AnnotationMatchingPointcut.forMethodAnnotation(NoOpAdvised.class),
					(MethodInterceptor) invocation -> invocation.proceed());
		}

		@Bean
		NoOpAdvisedService noOpAdvisedService() {
			return new NoOpAdvisedService();
		}

	}

	/** The floor's bean: no annotation. */
	public static class PlainService {

		/** Not final, so the JIT cannot fold the call into a constant. */
		String payload = "ok";

		public String call() {
			return this.payload;
		}

	}

	// ---------------------------------------------------------------- retrykit

	/** retrykit's aspect, from its auto-configuration, with Boot's {@link AopAutoConfiguration} as auto-proxy creator. */
	@State(Scope.Benchmark)
	public static class RetrykitAop {

		AnnotationConfigApplicationContext context;

		RetrykitService bean;

		@Setup
		public void start() {
			this.context = startContext(RETRYKIT_PROPERTIES, RetrykitConfig.class);
			this.bean = this.context.getBean(RetrykitService.class);
			RetrykitCheck check = this.context.getBean(RetrykitCheck.class);
			requireRetryingProxy("retrykit @Retryable", this.bean, check, check::run);
		}

		@TearDown
		public void stop() {
			this.context.close();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ AopAutoConfiguration.class, RetryAutoConfiguration.class })
	static class RetrykitConfig {

		@Bean
		RetrykitService retrykitService() {
			return new RetrykitService();
		}

		@Bean
		RetrykitCheck retrykitCheck() {
			return new RetrykitCheck();
		}

	}

	public static class RetrykitService {

		String payload = "ok";

		@dev.retrykit.annotation.Retryable(INSTANCE)
		public String call() {
			return this.payload;
		}

	}

	public static class RetrykitCheck {

		@dev.retrykit.annotation.Retryable(INSTANCE)
		public String run(Callable<String> call) throws Exception {
			return call.call();
		}

	}

	// ---------------------------------------------------------------- set-up helpers

	/**
	 * @param properties the environment's properties, highest precedence
	 * @param configuration the configuration class
	 * @return the started context
	 */
	static AnnotationConfigApplicationContext startContext(Map<String, Object> properties, Class<?> configuration) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("benchmark", properties));
		context.register(configuration);
		context.refresh();
		return context;
	}

	/**
	 * Fails the trial unless {@code check}'s proxy retries a call that fails twice to success on attempt
	 * 3, and {@code bean} is a CGLIB proxy carrying the same advisors as {@code check}.
	 * @param library the library's name, for the message
	 * @param bean the measured bean
	 * @param check the library's self-check bean, annotated as {@code bean} is
	 * @param runner runs a call through {@code check}'s annotated method
	 */
	static void requireRetryingProxy(String library, Object bean, Object check, SelfCheck.Runner runner) {
		SelfCheck.requireThreeAttempts(library, runner);
		if (!AopUtils.isCglibProxy(bean) || !AopUtils.isCglibProxy(check)) {
			throw new IllegalStateException(library + ": not a CGLIB proxy: " + bean.getClass() + ", " + check.getClass());
		}
		List<Class<?>> advisors = advisorTypes(bean);
		if (advisors.isEmpty() || !advisors.equals(advisorTypes(check))) {
			throw new IllegalStateException(library + ": the measured bean's advisors " + advisors
					+ " are not the self-checked bean's " + advisorTypes(check));
		}
	}

	private static List<Class<?>> advisorTypes(Object proxy) {
		return Arrays.stream(((Advised) proxy).getAdvisors()).<Class<?>>map(Advisor::getClass).toList();
	}

}
