package dev.retrykit.spring.boot.autoconfigure;

import java.util.Map;
import java.util.Set;

import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryTemplate;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers a {@link RetryTemplate} bean named {@code <name>RetryTemplate} for each instance declared
 * under {@code retry.instances}, so that it can be injected by name. Each bean is
 * {@code registry.template(name)} of the {@link RetryRegistry} bean. A bean the application already
 * defines under that name wins.
 */
final class RetryTemplateBeansRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware {

	/** The suffix of the template bean names. */
	static final String BEAN_NAME_SUFFIX = "RetryTemplate";

	private Environment environment;

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
		// Only the names are read here; the values are bound and validated by RetryProperties.
		Set<String> names = Binder.get(this.environment)
			.bind("retry.instances", Bindable.mapOf(String.class, Object.class))
			.map(Map::keySet)
			.orElse(Set.of());
		BeanFactory beanFactory = (BeanFactory) registry;
		for (String name : names) {
			String beanName = name + BEAN_NAME_SUFFIX;
			if (!registry.containsBeanDefinition(beanName)) {
				RootBeanDefinition definition = new RootBeanDefinition(RetryTemplate.class);
				definition.setInstanceSupplier(() -> beanFactory.getBean(RetryRegistry.class).template(name));
				registry.registerBeanDefinition(beanName, definition);
			}
		}
	}

}
