package dev.retrykit.spring.boot.autoconfigure;

import java.util.Map;
import java.util.Set;

import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryTemplate;

import org.springframework.beans.factory.config.AutowireCapableBeanFactory;
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
 *
 * <p>Each definition names a static factory method and holds the instance name as its constructor
 * argument, rather than an instance supplier: Spring AOT can write such a definition out as code (an
 * instance supplier cannot be processed ahead of time), so applications pass AOT processing and run as
 * native images.
 */
final class RetryTemplateBeansRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware {

	/** The suffix of the template bean names. */
	static final String BEAN_NAME_SUFFIX = "RetryTemplate";

	@SuppressWarnings("NullAway.Init") // set by the container (EnvironmentAware) before it registers the beans
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
		for (String name : names) {
			String beanName = name + BEAN_NAME_SUFFIX;
			if (!registry.containsBeanDefinition(beanName)) {
				RootBeanDefinition definition = new RootBeanDefinition(RetryTemplateBeansRegistrar.class);
				definition.setTargetType(RetryTemplate.class);
				definition.setFactoryMethodName("template");
				// The registry is autowired by type: an application's own RetryRegistry bean may have any name.
				definition.setAutowireMode(AutowireCapableBeanFactory.AUTOWIRE_CONSTRUCTOR);
				definition.getConstructorArgumentValues().addIndexedArgumentValue(1, name);
				registry.registerBeanDefinition(beanName, definition);
			}
		}
	}

	/**
	 * The factory method of the template beans.
	 * @param registry the registry bean
	 * @param name the instance's name
	 * @return the registry's template for that instance
	 */
	static RetryTemplate template(RetryRegistry registry, String name) {
		return registry.template(name);
	}

}
