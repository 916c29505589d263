package dev.retrykit.spring.boot.autoconfigure;

import java.util.List;

import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryRegistryBuilder;
import dev.retrykit.VirtualTime;
import dev.retrykit.scheduler.TimingWheelScheduler;
import dev.retrykit.scheduler.TimingWheelSchedulerBuilder;
import dev.retrykit.spi.DelayHintExtractor;
import dev.retrykit.spring.boot.http.RetryAfterDelayHintExtractor;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.boot.context.properties.ConfigurationPropertiesBinding;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.PropertySourcesPlaceholdersResolver;
import org.springframework.boot.context.properties.bind.handler.IgnoreTopLevelConverterNotFoundBindHandler;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.core.Ordered;
import org.springframework.core.convert.converter.Converter;
import org.springframework.core.convert.converter.GenericConverter;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Binds and validates all of {@code retry.*} once the bean definitions are known and before any bean is
 * created, so that an invalid configuration fails startup before the web server starts, with its failure
 * analysis as the first and only error (not after Tomcat's start lines, behind the bean creation failure of
 * the registry). Bean names in the properties are checked against the bean definitions, not created. The
 * auto-configuration binds and maps again when it creates the registry; this pass only finds errors early.
 * A failure names where the property was set (file and line) when its source knows. Used once at startup.
 */
final class RetryPropertiesValidator implements BeanFactoryPostProcessor, Ordered {

	private final ConfigurableEnvironment environment;

	RetryPropertiesValidator(ConfigurableEnvironment environment) {
		this.environment = environment;
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
		try {
			validate(beanFactory);
		}
		catch (InvalidRetryPropertyException ex) {
			throw ex.locatedIn(this.environment);
		}
	}

	private void validate(ConfigurableListableBeanFactory beanFactory) {
		RetryProperties properties = bind(this.environment, beanFactory);
		checkTimer(properties);
		boolean retryAfter = beanFactory.getBeanNamesForType(RetryAfterDelayHintExtractor.class, true, false).length > 0;
		// A throwaway registry on virtual time: validating must not start the JVM's default timing wheel.
		RetryRegistryBuilder registry = RetryRegistry.builder().virtualTime(new VirtualTime());
		new RetryPropertiesMapper(beanFactory, beanFactory.getBeanClassLoader(), List.of(),
				retryAfter ? (DelayHintExtractor) failure -> null : null, false).applyTo(properties, registry);
		RetryRegistryFactory.build(registry);
		ClusterSettings.validate(properties);
		HttpClaims.of(properties);
		HttpHeaderNames.check(properties.getHttp());
	}

	/**
	 * Binds all of {@code retry.*} as Boot binds {@code @ConfigurationProperties}: the
	 * {@code @ConfigurationPropertiesBinding} converters first (retrykit's compound durations), then the
	 * application's conversions; an unknown key is an error.
	 * @param environment the environment
	 * @param beanFactory where the binding converters are defined
	 * @return the bound properties
	 */
	static RetryProperties bind(ConfigurableEnvironment environment, ConfigurableListableBeanFactory beanFactory) {
		ApplicationConversionService bindingConverters = new ApplicationConversionService();
		BeanFactoryAnnotationUtils.qualifiedBeansOfType(beanFactory, Converter.class, ConfigurationPropertiesBinding.VALUE)
			.values()
			.forEach(bindingConverters::addConverter);
		BeanFactoryAnnotationUtils
			.qualifiedBeansOfType(beanFactory, GenericConverter.class, ConfigurationPropertiesBinding.VALUE)
			.values()
			.forEach(bindingConverters::addConverter);
		Binder binder = new Binder(ConfigurationPropertySources.get(environment),
				new PropertySourcesPlaceholdersResolver(environment),
				List.of(bindingConverters, ApplicationConversionService.getSharedInstance()), null, null, null);
		return binder
			.bind("retry", Bindable.of(RetryProperties.class),
					new NoUnboundElementsBindHandler(new IgnoreTopLevelConverterNotFoundBindHandler()))
			.orElseGet(RetryProperties::new);
	}

	/**
	 * Checks {@code retry.timer.*} as the timing wheel's builder does.
	 * @param properties the bound properties
	 */
	static void checkTimer(RetryProperties properties) {
		TimingWheelSchedulerBuilder timer = TimingWheelScheduler.builder();
		RetryPropertiesMapper.set("retry.timer.tick", properties.getTimer().getTick(), timer::tick);
		RetryPropertiesMapper.set("retry.timer.wheel-size", properties.getTimer().getWheelSize(), timer::wheelSize);
	}

	/** First among the ordinary post-processors: nothing else should fail, or start, before the configuration is known good. */
	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
