package dev.retrykit.spring.boot.aop;

import java.lang.reflect.Field;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.ReflectiveMethodInvocation;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.util.ReflectionUtils;

/**
 * The reflection the aspect itself needs in a native image: the chain index of
 * {@link ReflectiveMethodInvocation} that {@link AttemptInvoker} rewinds (without the hint the image
 * still works, each attempt then runs on an invocable clone). Stateless and thread-safe.
 */
public final class RetryAspectRuntimeHints implements RuntimeHintsRegistrar {

	/** Makes the registrar; Spring does, for {@code @ImportRuntimeHints}. */
	public RetryAspectRuntimeHints() {
	}

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		Field index = ReflectionUtils.findField(ReflectiveMethodInvocation.class, AttemptInvoker.INDEX_FIELD, int.class);
		if (index != null) {
			hints.reflection().registerField(index);
		}
	}

}
