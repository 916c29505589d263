package dev.retrykit.spring.boot.autoconfigure;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;

/**
 * Registers, at AOT processing time, a reflection hint for every exception class that
 * {@code retry.defaults}, {@code retry.configs.*} or {@code retry.instances.*} name in {@code retry-on},
 * {@code ignore} or {@code not-recoverable}: the starter loads them by name when it builds the registry, which a native image
 * allows only for registered types. The properties are read from the environment AOT processing runs
 * with, as Boot's own conditions are. Registered in {@code META-INF/spring/aot.factories}. Stateless and
 * thread-safe.
 */
final class RetryPropertiesAotProcessor implements BeanFactoryInitializationAotProcessor {

	@Override
	public @Nullable BeanFactoryInitializationAotContribution processAheadOfTime(ConfigurableListableBeanFactory beanFactory) {
		if (!beanFactory.containsBean(ConfigurableApplicationContext.ENVIRONMENT_BEAN_NAME)) {
			return null;
		}
		Binder binder = Binder.get(beanFactory.getBean(ConfigurableApplicationContext.ENVIRONMENT_BEAN_NAME, Environment.class));
		Set<String> names = new LinkedHashSet<>();
		binder.bind("retry.defaults", ExceptionNames.class).ifBound(group -> group.addTo(names));
		Bindable<Map<String, ExceptionNames>> groups = Bindable.mapOf(String.class, ExceptionNames.class);
		binder.bind("retry.configs", groups).ifBound(map -> map.values().forEach(group -> group.addTo(names)));
		binder.bind("retry.instances", groups).ifBound(map -> map.values().forEach(group -> group.addTo(names)));
		if (names.isEmpty()) {
			return null;
		}
		return (generationContext, code) -> {
			ReflectionHints hints = generationContext.getRuntimeHints().reflection();
			names.forEach(name -> hints.registerType(TypeReference.of(name)));
		};
	}

	/**
	 * The class names of one group of properties; every other key of the group is ignored here.
	 * @param retryOn the {@code retry-on} names, or {@code null}
	 * @param ignore the {@code ignore} names, or {@code null}
	 * @param notRecoverable the {@code not-recoverable} names, or {@code null}
	 */
	record ExceptionNames(@Nullable List<String> retryOn, @Nullable List<String> ignore,
			@Nullable List<String> notRecoverable) {

		void addTo(Set<String> names) {
			for (List<String> list : Arrays.asList(this.retryOn, this.ignore, this.notRecoverable)) {
				if (list != null) {
					list.forEach(name -> names.add(name.trim()));
				}
			}
		}

	}

}
