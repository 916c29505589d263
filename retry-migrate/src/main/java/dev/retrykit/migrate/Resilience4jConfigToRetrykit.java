package dev.retrykit.migrate;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.jspecify.annotations.Nullable;
import org.openrewrite.Cursor;
import org.openrewrite.ExecutionContext;
import org.openrewrite.Recipe;
import org.openrewrite.SourceFile;
import org.openrewrite.Tree;
import org.openrewrite.TreeVisitor;
import org.openrewrite.internal.ListUtils;
import org.openrewrite.marker.Markers;
import org.openrewrite.properties.tree.Properties;
import org.openrewrite.yaml.YamlIsoVisitor;
import org.openrewrite.yaml.tree.Yaml;

/**
 * Moves the {@code resilience4j.retry.*} and {@code resilience4j.circuitbreaker.*} blocks of {@code application.yml}
 * and {@code application.properties} (any profile) to {@code retry.*} with {@link Resilience4jConfigMapping}.
 * Settings without a retrykit equivalent stay where they are with a {@code retrykit-migrate:} comment and a row in
 * {@link UnmappedElements}.
 */
public final class Resilience4jConfigToRetrykit extends Recipe {

	/** Makes the recipe; OpenRewrite creates it by its name. */
	public Resilience4jConfigToRetrykit() {
	}

	private static final String PREFIX = "resilience4j.";

	private final transient UnmappedElements unmapped = new UnmappedElements(this);

	@Override
	public String getDisplayName() {
		return "Resilience4j retry and circuit breaker properties to retrykit";
	}

	@Override
	public String getDescription() {
		return "Moves `resilience4j.retry.*` and `resilience4j.circuitbreaker.*` (instances, configs with `baseConfig`) "
				+ "from `application.yml` and `.properties` to `retry.*`, the breaker's thresholds as a trip expression.";
	}

	@Override
	public TreeVisitor<?, ExecutionContext> getVisitor() {
		return new TreeVisitor<>() {
			@Override
			public @Nullable Tree visit(@Nullable Tree tree, ExecutionContext context) {
				if (!(tree instanceof SourceFile source) || !isApplicationConfig(source)) {
					return tree;
				}
				if (tree instanceof Yaml.Documents yaml) {
					return yaml(yaml, context);
				}
				if (tree instanceof Properties.File properties) {
					return properties(properties, context);
				}
				return tree;
			}
		};
	}

	private static boolean isApplicationConfig(SourceFile source) {
		String name = source.getSourcePath().getFileName().toString();
		return name.startsWith("application") && (name.endsWith(".yml") || name.endsWith(".yaml") || name.endsWith(".properties"));
	}

	/** Migrates each document of the file on its own: a profile's document keeps its own settings. */
	private Yaml.Documents yaml(Yaml.Documents documents, ExecutionContext context) {
		if (documents.getDocuments().size() < 2) {
			return yamlDocument(documents, context);
		}
		boolean changed = false;
		List<Yaml.Document> migrated = new ArrayList<>();
		for (Yaml.Document document : documents.getDocuments()) {
			Yaml.Document after = yamlDocument(documents.withDocuments(List.of(document)), context).getDocuments().get(0);
			changed |= after != document;
			migrated.add(after);
		}
		return changed ? documents.withDocuments(migrated) : documents;
	}

	private Yaml.Documents yamlDocument(Yaml.Documents documents, ExecutionContext context) {
		Map<String, Object> found = new LinkedHashMap<>();
		for (Yaml.Document document : documents.getDocuments()) {
			collect(document.getBlock(), "", found);
		}
		Resilience4jConfigMapping.Result result = Resilience4jConfigMapping.map(found);
		if (result.consumed().isEmpty() && result.unmapped().isEmpty()) {
			return documents;
		}
		String path = documents.getSourcePath().toString();
		Yaml.Documents changed = (Yaml.Documents) new YamlIsoVisitor<ExecutionContext>() {
			// Null removes the entry (OpenRewrite's visit() returns @Nullable and the mapping drops a null entry),
			// which YamlIsoVisitor's non-null signature for this method does not say.
			@Override
			@SuppressWarnings("NullAway")
			public Yaml.Mapping.@Nullable Entry visitMappingEntry(Yaml.Mapping.Entry entry, ExecutionContext p) {
				String key = normalizedKey(getCursor());
				if (key != null && result.consumed().contains(key)) {
					return null;
				}
				Yaml.Mapping.Entry visited = super.visitMappingEntry(entry, p);
				if (key != null && result.unmapped().containsKey(key) && !visited.getPrefix().contains(MigrationNotes.MARKER)) {
					String reason = result.unmapped().get(key);
					unmapped.insertRow(p, new UnmappedElements.Row(path, PREFIX + key, reason));
					String prefix = visited.getPrefix();
					String indent = prefix.substring(prefix.lastIndexOf('\n') + 1);
					return visited.withPrefix(prefix + "# " + MigrationNotes.MARKER + " " + reason + "\n" + indent);
				}
				if (visited.getValue() instanceof Yaml.Mapping mapping && mapping.getEntries().isEmpty()) {
					return null;
				}
				return visited;
			}
		}.visitNonNull(documents, context);
		return result.tree().isEmpty() ? changed : ApplicationConfig.mergeInto(changed, result.tree(), context);
	}

	/** @return the normalised key (below resilience4j.) of the entry at the cursor, or null */
	private static @Nullable String normalizedKey(Cursor cursor) {
		List<String> keys = new ArrayList<>();
		for (Cursor at = cursor; at != null; at = at.getParent()) {
			if (at.getValue() instanceof Yaml.Mapping.Entry entry) {
				keys.add(0, entry.getKey().getValue());
			}
		}
		String key = String.join(".", keys);
		return key.startsWith(PREFIX) ? Resilience4jConfigMapping.normalize(key.substring(PREFIX.length())) : null;
	}

	private static void collect(Yaml.Block block, String prefix, Map<String, Object> found) {
		if (block instanceof Yaml.Mapping mapping) {
			for (Yaml.Mapping.Entry entry : mapping.getEntries()) {
				String key = entry.getKey().getValue();
				collect(entry.getValue(), prefix.isEmpty() ? key : prefix + "." + key, found);
			}
		}
		else if (block instanceof Yaml.Scalar scalar) {
			put(prefix, scalar.getValue(), found);
		}
		else if (block instanceof Yaml.Sequence sequence) {
			List<String> values = new ArrayList<>();
			for (Yaml.Sequence.Entry entry : sequence.getEntries()) {
				if (entry.getBlock() instanceof Yaml.Scalar scalar) {
					values.add(scalar.getValue());
				}
			}
			put(prefix, values, found);
		}
	}

	private static void put(String key, Object value, Map<String, Object> found) {
		if (key.startsWith(PREFIX)) {
			String normalized = Resilience4jConfigMapping.normalize(key.substring(PREFIX.length()));
			if (normalized != null) {
				found.put(normalized, value);
			}
		}
	}

	private Properties.File properties(Properties.File file, ExecutionContext context) {
		Map<String, Object> found = new LinkedHashMap<>();
		for (Properties.Content content : file.getContent()) {
			if (content instanceof Properties.Entry entry && entry.getKey().startsWith(PREFIX)) {
				String normalized = Resilience4jConfigMapping.normalize(entry.getKey().substring(PREFIX.length()));
				if (normalized == null) {
					continue;
				}
				String value = entry.getValue().getText();
				if (normalized.endsWith("-exceptions")) {
					@SuppressWarnings("unchecked")
					List<String> list = (List<String>) found.computeIfAbsent(normalized, (key) -> new ArrayList<String>());
					Arrays.stream(value.split(",")).map(String::trim).filter((type) -> !type.isEmpty()).forEach(list::add);
				}
				else {
					found.put(normalized, value);
				}
			}
		}
		Resilience4jConfigMapping.Result result = Resilience4jConfigMapping.map(found);
		if (result.consumed().isEmpty() && result.unmapped().isEmpty()) {
			return file;
		}
		String path = file.getSourcePath().toString();
		List<Properties.Content> content = new ArrayList<>();
		Properties.Content previous = null;
		for (Properties.Content line : file.getContent()) {
			String key = (line instanceof Properties.Entry entry && entry.getKey().startsWith(PREFIX))
					? Resilience4jConfigMapping.normalize(entry.getKey().substring(PREFIX.length())) : null;
			if (key != null && result.consumed().contains(key)) {
				continue;
			}
			if (key != null && result.unmapped().containsKey(key) && !(previous instanceof Properties.Comment comment
					&& comment.getMessage().contains(MigrationNotes.MARKER))) {
				String reason = result.unmapped().get(key);
				unmapped.insertRow(context, new UnmappedElements.Row(path, PREFIX + key, reason));
				content.add(new Properties.Comment(UUID.randomUUID(), line.getPrefix(), Markers.EMPTY,
						Properties.Comment.Delimiter.HASH_TAG, " " + MigrationNotes.MARKER + " " + reason));
				line = (Properties.Content) line.withPrefix("\n");
			}
			content.add(line);
			previous = line;
		}
		if (!content.isEmpty() && !file.getContent().isEmpty() && content.get(0) != file.getContent().get(0)) {
			content.set(0, (Properties.Content) content.get(0).withPrefix(file.getContent().get(0).getPrefix()));
		}
		Properties.File changed = file.withContent(ListUtils.map(content, (line) -> line));
		return result.tree().isEmpty() ? changed : ApplicationConfig.addTo(changed, result.tree(), context);
	}

}
