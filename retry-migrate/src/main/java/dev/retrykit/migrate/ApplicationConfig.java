package dev.retrykit.migrate;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.openrewrite.ExecutionContext;
import org.openrewrite.SourceFile;
import org.openrewrite.properties.AddProperty;
import org.openrewrite.properties.tree.Properties;
import org.openrewrite.yaml.MergeYaml;
import org.openrewrite.yaml.YamlParser;
import org.openrewrite.yaml.tree.Yaml;

/**
 * Where a module's Spring Boot configuration lives ({@code src/main/resources/application.yml}, {@code .yaml} or
 * {@code .properties}) and how the recipes add {@code retry.*} settings to it. Stateless.
 */
final class ApplicationConfig {

	private static final String MAIN_JAVA = "src/main/java/";

	private static final String MAIN_RESOURCES = "src/main/resources/";

	private ApplicationConfig() {
	}

	/** @return the module folder of a main source or resource ("" for the root module), or null for other files */
	static @Nullable String moduleRoot(Path sourcePath) {
		String path = sourcePath.toString().replace('\\', '/');
		for (String folder : new String[] { MAIN_JAVA, MAIN_RESOURCES }) {
			int at = path.startsWith(folder) ? 0 : path.indexOf("/" + folder);
			if (at >= 0) {
				return (at == 0 && path.startsWith(folder)) ? "" : path.substring(0, at + 1);
			}
		}
		return null;
	}

	/** @return whether the file is a module's main {@code application.yml} / {@code application.yaml} */
	static boolean isApplicationYaml(Path sourcePath) {
		String path = sourcePath.toString().replace('\\', '/');
		return path.endsWith(MAIN_RESOURCES + "application.yml") || path.endsWith(MAIN_RESOURCES + "application.yaml");
	}

	/** @return whether the file is a module's main {@code application.properties} */
	static boolean isApplicationProperties(Path sourcePath) {
		return sourcePath.toString().replace('\\', '/').endsWith(MAIN_RESOURCES + "application.properties");
	}

	/** @return the YAML document with the tree merged in (existing values win) */
	static Yaml.Documents mergeInto(Yaml.Documents documents, PropertyTree tree, ExecutionContext context) {
		MergeYaml merge = new MergeYaml("$", tree.toYaml(), true, null, null, null, null, true);
		return (Yaml.Documents) merge.getVisitor().visitNonNull(documents, context);
	}

	/** @return the properties file with each property of the tree added (existing keys win) */
	static Properties.File addTo(Properties.File file, PropertyTree tree, ExecutionContext context) {
		Properties.File result = file;
		for (Map.Entry<String, String> property : tree.toProperties().entrySet()) {
			AddProperty add = new AddProperty(property.getKey(), property.getValue(), null, null, false, null, null);
			result = (Properties.File) add.getVisitor().visitNonNull(result, context);
		}
		return result;
	}

	/** @return a new {@code application.yml} of the module with the tree */
	static SourceFile newYaml(String moduleRoot, PropertyTree tree) {
		SourceFile yaml = YamlParser.builder().build().parse(tree.toYaml()).findFirst()
			.orElseThrow(() -> new IllegalStateException("the generated YAML does not parse:\n" + tree.toYaml()));
		return yaml.withSourcePath(Paths.get(moduleRoot + MAIN_RESOURCES + "application.yml"));
	}

}
