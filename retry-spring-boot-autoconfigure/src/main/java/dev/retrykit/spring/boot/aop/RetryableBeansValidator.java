package dev.retrykit.spring.boot.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import dev.retrykit.annotation.Retryable;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Resolves every {@code @Retryable} method of every bean once the singletons exist, so that a recover
 * method that is missing, does not fit or is ambiguous, a {@code @Recover} method that fits no method of its class, an invalid inline attribute or an unsupported
 * return type fails startup (naming the method) instead of the first call. It also creates the
 * instances named after methods, so that they are visible before their first call. A method that carries
 * Spring Framework's own {@code @Retryable} ({@code org.springframework.resilience.annotation}) instead of
 * retrykit's gets one warning naming the method and the import, since an IDE's auto-import picks either.
 * Used once, at startup.
 */
public final class RetryableBeansValidator implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(RetryableBeansValidator.class);

	/** Spring Framework 7's annotation of the same simple name, which an IDE's auto-import may pick. */
	private static final Class<org.springframework.resilience.annotation.Retryable> FRAMEWORK_RETRYABLE =
			org.springframework.resilience.annotation.Retryable.class;

	private final ConfigurableListableBeanFactory beanFactory;

	private final RetryAdvisor advisor;

	/**
	 * Makes the validator of the beans of a context.
	 * @param beanFactory the context's beans
	 * @param advisor the advisor whose methods are resolved
	 */
	public RetryableBeansValidator(ConfigurableListableBeanFactory beanFactory, RetryAdvisor advisor) {
		this.beanFactory = beanFactory;
		this.advisor = advisor;
	}

	@Override
	public void afterSingletonsInstantiated() {
		for (String name : this.beanFactory.getBeanDefinitionNames()) {
			BeanDefinition definition = this.beanFactory.getMergedBeanDefinition(name);
			if (definition.getRole() == BeanDefinition.ROLE_INFRASTRUCTURE) {
				continue;
			}
			Class<?> type = this.beanFactory.getType(name, false);
			if (type == null) {
				continue;
			}
			Class<?> userClass = ClassUtils.getUserClass(type);
			List<Method> retryables = new ArrayList<>();
			if (AnnotatedElementUtils.hasAnnotation(userClass, FRAMEWORK_RETRYABLE)) {
				warnOfFrameworkRetryable(userClass.getName());
			}
			for (Method method : ReflectionUtils.getUniqueDeclaredMethods(userClass, ReflectionUtils.USER_DECLARED_METHODS)) {
				if (AnnotatedElementUtils.hasAnnotation(method, FRAMEWORK_RETRYABLE)) {
					warnOfFrameworkRetryable(userClass.getName() + "." + method.getName());
				}
				if (RetryableAnnotations.isAnnotated(method, userClass)) {
					this.advisor.getInterceptor().prepare(method, userClass);
					Retryable retryable = RetryableAnnotations.find(method, userClass);
					// A method that says it has no recovery does not make a @Recover method useful.
					if (RetryableAnnotations.findFailback(method) == null && retryable != null
							&& !Retryable.NO_RECOVERY.equals(retryable.recover())) {
						retryables.add(method);
					}
				}
			}
			RecoverMethods.checkEveryRecoverFits(userClass, retryables);
		}
	}

	private static void warnOfFrameworkRetryable(String annotated) {
		logger.warn(annotated + " is annotated with Spring Framework's @" + FRAMEWORK_RETRYABLE.getName() + ", not retrykit's: retrykit's instances, metrics and "
				+ "endpoint do not see it (Spring runs its own retry only with @EnableResilientMethods). To retry it "
				+ "with retrykit, import dev.retrykit.annotation.Retryable instead.");
	}

}
