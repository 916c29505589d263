package dev.retrykit.spring.boot.autoconfigure;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * A config, instance or the defaults with the property groups it inherits from, nearest first: itself,
 * its {@code base-config}, that config's {@code base-config}, and so on, then {@code retry.defaults}.
 *
 * <p>Inheritance itself is resolved on the built base configs; a chain answers the two questions a
 * built config cannot: where an inherited value was set (so that a startup failure can say so), and
 * what the effective value of a property is whose core counterpart combines several properties (the
 * delay hint). A missing base or a cycle ends the chain; both are reported elsewhere. Immutable.
 *
 * @param levels the groups, nearest first, the defaults last
 */
record BaseConfigChain(List<Level> levels) {

	BaseConfigChain {
		levels = List.copyOf(levels);
	}

	/**
	 * @param path the property path of the defaults, {@code retry.defaults}
	 * @param defaults the defaults
	 * @return the chain of the defaults, which inherit from nothing
	 */
	static BaseConfigChain ofDefaults(String path, RetryInstanceProperties defaults) {
		return new BaseConfigChain(List.of(new Level(path, defaults)));
	}

	/**
	 * @param path the property path of the config or instance, e.g. {@code retry.instances.inventory}
	 * @param own its properties
	 * @param configsPath the property path of the shared configs, {@code retry.configs}
	 * @param configs the shared configs by name
	 * @param defaults the chain of the defaults, which ends every chain
	 * @return the chain
	 */
	static BaseConfigChain of(String path, RetryInstanceProperties own, String configsPath,
			Map<String, RetryInstanceProperties> configs, BaseConfigChain defaults) {
		List<Level> levels = new ArrayList<>(List.of(new Level(path, own)));
		Set<String> seen = new HashSet<>();
		for (String name = own.getBaseConfig(); name != null && configs.containsKey(name) && seen.add(name);
				name = configs.get(name).getBaseConfig()) {
			levels.add(new Level(configsPath + "." + name, configs.get(name)));
		}
		levels.addAll(defaults.levels);
		return new BaseConfigChain(levels);
	}

	/** @return the property path of the group itself */
	String path() {
		return this.levels.get(0).path();
	}

	/** @return the properties of the group itself */
	RetryInstanceProperties own() {
		return this.levels.get(0).properties();
	}

	/**
	 * @param getter reads a property of a group, {@code null} when it is unset there
	 * @return the nearest group that sets it, this one included, or {@code null} if none does
	 */
	<T> @Nullable Setting<T> nearest(Function<RetryInstanceProperties, @Nullable T> getter) {
		return find(getter, 0);
	}

	/**
	 * @param getter reads a property of a group, {@code null} when it is unset there
	 * @return the nearest base that sets it (the group itself is skipped), or {@code null} if the value
	 * is the built-in default
	 */
	<T> @Nullable Setting<T> inherited(Function<RetryInstanceProperties, @Nullable T> getter) {
		return find(getter, 1);
	}

	private <T> @Nullable Setting<T> find(Function<RetryInstanceProperties, @Nullable T> getter, int from) {
		for (Level level : this.levels.subList(Math.min(from, this.levels.size()), this.levels.size())) {
			T value = getter.apply(level.properties());
			if (value != null) {
				return new Setting<>(level.path(), value);
			}
		}
		return null;
	}

	/**
	 * One group of the chain.
	 * @param path its property path, e.g. {@code retry.configs.slow-backend}
	 * @param properties its properties
	 */
	record Level(String path, RetryInstanceProperties properties) {
	}

	/**
	 * A value and the group that sets it.
	 * @param groupPath the property path of the group, e.g. {@code retry.defaults}
	 * @param value the value
	 */
	record Setting<T>(String groupPath, T value) {
	}

}
