package dev.retrykit.spring.boot.autoconfigure;

import java.util.List;

import dev.retrykit.RetryListener;
import dev.retrykit.RetryRegistry;
import dev.retrykit.spring.boot.aop.MethodListeners;
import dev.retrykit.spring.boot.aop.RetryAdvisor;
import dev.retrykit.spring.boot.aop.RetryTargetsAdvisor;
import dev.retrykit.spring.boot.aop.RetryableBeansValidator;
import dev.retrykit.spring.boot.aop.RetryableMethodResolver;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * The {@code @Retryable} aspect's beans: the annotation advisor, the {@code retry.targets} advisor,
 * the method resolver and the startup validation. Advisors are static infrastructure beans that read
 * their order and targets from the environment, so that creating them (early, while post-processors
 * are registered) creates no other bean; they obtain the resolver on first use.
 */
@Configuration(proxyBeanMethods = false)
public final class RetryAspectConfiguration {

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static RetryAdvisor retryAdvisor(Environment environment, ObjectProvider<RetryableMethodResolver> resolver) {
		return new RetryAdvisor(resolver::getObject, aspectOrder(environment));
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static RetryTargetsAdvisor retryTargetsAdvisor(Environment environment,
			ObjectProvider<RetryableMethodResolver> resolver) {
		List<RetryProperties.Target> targets = Binder.get(environment)
			.bind("retry.targets", Bindable.listOf(RetryProperties.Target.class))
			.orElse(List.of());
		return new RetryTargetsAdvisor(RetryTargets.parse(targets), resolver::getObject, aspectOrder(environment));
	}

	@Bean
	@ConditionalOnMissingBean
	RetryableMethodResolver retryableMethodResolver(RetryRegistry registry, ConfigurableListableBeanFactory beanFactory,
			MethodListeners methodListeners, Environment environment) {
		boolean sharedKeys = Binder.get(environment).bind("retry.cluster.enabled", Boolean.class).orElse(false);
		return new RetryableMethodResolver(registry, beanFactory, methodListeners, sharedKeys);
	}

	@Bean
	@ConditionalOnMissingBean
	MethodListeners retryMethodListeners(ObjectProvider<RetryListener> listeners) {
		return new MethodListeners(listeners.orderedStream().toList());
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static RetryableBeansValidator retryableBeansValidator(ConfigurableListableBeanFactory beanFactory,
			RetryAdvisor retryAdvisor) {
		return new RetryableBeansValidator(beanFactory, retryAdvisor);
	}

	private static int aspectOrder(Environment environment) {
		return Binder.get(environment).bind("retry.aspect-order", Integer.class).orElse(RetryProperties.DEFAULT_ASPECT_ORDER);
	}

}
