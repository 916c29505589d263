package dev.retrykit.migrate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Configuration properties to write, as a tree in insertion order, rendered either as YAML or as
 * {@code .properties} lines. A key segment with a dot (an instance named {@code OrderService.place}) is written in
 * Boot's bracket form ({@code [OrderService.place]}) so that it binds as one map key. Values are strings or lists of
 * strings. Not thread-safe.
 */
final class PropertyTree {

	private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_.\\-]+");

	private final Map<String, Object> root = new LinkedHashMap<>();

	/**
	 * Sets a value; an existing value at the path is replaced.
	 * @param path the key segments
	 * @param value a string or a list of strings
	 */
	@SuppressWarnings("unchecked")
	void put(List<String> path, Object value) {
		Map<String, Object> node = this.root;
		for (String segment : path.subList(0, path.size() - 1)) {
			node = (Map<String, Object>) node.computeIfAbsent(segment, (key) -> new LinkedHashMap<String, Object>());
		}
		node.put(path.get(path.size() - 1), value);
	}

	boolean isEmpty() {
		return this.root.isEmpty();
	}

	/** @return the tree as a YAML document, two spaces per level */
	String toYaml() {
		StringBuilder yaml = new StringBuilder();
		yaml(this.root, "", yaml);
		return yaml.toString();
	}

	/** @return the tree as {@code key=value} pairs in order, lists joined with commas */
	Map<String, String> toProperties() {
		Map<String, String> properties = new LinkedHashMap<>();
		flatten(this.root, "", properties);
		return properties;
	}

	@SuppressWarnings("unchecked")
	private static void yaml(Map<String, Object> node, String indent, StringBuilder yaml) {
		for (Map.Entry<String, Object> entry : node.entrySet()) {
			String key = entry.getKey().contains(".") ? "\"[" + entry.getKey() + "]\"" : entry.getKey();
			yaml.append(indent).append(key).append(':');
			if (entry.getValue() instanceof Map<?, ?> child) {
				yaml.append('\n');
				yaml((Map<String, Object>) child, indent + "  ", yaml);
			}
			else if (entry.getValue() instanceof List<?> list) {
				yaml.append('\n');
				for (Object element : list) {
					yaml.append(indent).append("  - ").append(scalar(String.valueOf(element))).append('\n');
				}
			}
			else {
				yaml.append(' ').append(scalar(String.valueOf(entry.getValue()))).append('\n');
			}
		}
	}

	@SuppressWarnings("unchecked")
	private static void flatten(Map<String, Object> node, String prefix, Map<String, String> properties) {
		for (Map.Entry<String, Object> entry : node.entrySet()) {
			String segment = entry.getKey();
			String key = segment.contains(".") ? prefix + "[" + segment + "]"
					: (prefix.isEmpty() ? segment : prefix + "." + segment);
			if (entry.getValue() instanceof Map<?, ?> child) {
				flatten((Map<String, Object>) child, key, properties);
			}
			else if (entry.getValue() instanceof List<?> list) {
				List<String> values = new ArrayList<>();
				list.forEach((element) -> values.add(String.valueOf(element)));
				properties.put(key, String.join(",", values));
			}
			else {
				properties.put(key, String.valueOf(entry.getValue()));
			}
		}
	}

	private static String scalar(String value) {
		return PLAIN.matcher(value).matches() ? value : "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
	}

}
