package dev.retrykit.migrate;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import org.jspecify.annotations.Nullable;
import org.openrewrite.Cursor;
import org.openrewrite.ExecutionContext;
import org.openrewrite.ScanningRecipe;
import org.openrewrite.SourceFile;
import org.openrewrite.Tree;
import org.openrewrite.TreeVisitor;
import org.openrewrite.java.AnnotationMatcher;
import org.openrewrite.java.JavaIsoVisitor;
import org.openrewrite.java.JavaTemplate;
import org.openrewrite.java.RemoveAnnotationVisitor;
import org.openrewrite.java.ShortenFullyQualifiedTypeReferences;
import org.openrewrite.java.tree.J;
import org.openrewrite.java.tree.JavaSourceFile;
import org.openrewrite.java.tree.TypeUtils;
import org.openrewrite.properties.tree.Properties;
import org.openrewrite.yaml.tree.Yaml;

/**
 * Moves Spring Retry's annotations to retrykit's: {@code @Retryable} (with its {@code @Backoff}),
 * {@code @CircuitBreaker} (one attempt per call through an instance with a breaker, configured in
 * {@code application.yml}) and {@code @Recover}; removes {@code @EnableRetry} once nothing of Spring Retry is left.
 *
 * <p>A class is migrated whole or not at all: when one of its Spring Retry annotations has no faithful mapping, the
 * class keeps all of them (its {@code @Recover} methods must keep working with its {@code @Retryable} ones), gets a
 * comment that says why and a row in {@link UnmappedElements}.
 */
public final class SpringRetryAnnotationsToRetrykit extends ScanningRecipe<SpringRetryAnnotationsToRetrykit.Accumulator> {

	/** Makes the recipe; OpenRewrite creates it by its name. */
	public SpringRetryAnnotationsToRetrykit() {
	}

	static final String SPRING_RETRYABLE = "org.springframework.retry.annotation.Retryable";

	static final String SPRING_CIRCUIT_BREAKER = "org.springframework.retry.annotation.CircuitBreaker";

	static final String SPRING_RECOVER = "org.springframework.retry.annotation.Recover";

	static final String SPRING_BACKOFF = "org.springframework.retry.annotation.Backoff";

	static final String SPRING_ENABLE_RETRY = "org.springframework.retry.annotation.EnableRetry";

	private static final Set<String> ANNOTATIONS = Set.of(SPRING_RETRYABLE, SPRING_CIRCUIT_BREAKER, SPRING_RECOVER,
			SPRING_BACKOFF, SPRING_ENABLE_RETRY);

	private final transient UnmappedElements unmapped = new UnmappedElements(this);

	@Override
	public String getDisplayName() {
		return "Spring Retry annotations to retrykit";
	}

	@Override
	public String getDescription() {
		return "Moves Spring Retry's `@Retryable`, `@Backoff`, `@CircuitBreaker` and `@Recover` to retrykit's, every attribute "
				+ "mapped with Spring Retry's behaviour, circuit breakers as instances in `application.yml`; removes `@EnableRetry`.";
	}

	/** What the scan found: settings to write per module, the modules' config files, whether Spring Retry stays. */
	public static final class Accumulator {

		/** Makes an empty accumulator, which the scan fills. */
		public Accumulator() {
		}

		final Map<String, PropertyTree> settings = new LinkedHashMap<>();

		final Set<String> modulesWithYaml = new LinkedHashSet<>();

		final Set<String> modulesWithProperties = new LinkedHashSet<>();

		boolean springRetryStays;

	}

	@Override
	public Accumulator getInitialValue(ExecutionContext context) {
		return new Accumulator();
	}

	@Override
	public TreeVisitor<?, ExecutionContext> getScanner(Accumulator accumulator) {
		return new TreeVisitor<>() {
			@Override
			public @Nullable Tree visit(@Nullable Tree tree, ExecutionContext context) {
				if (tree instanceof SourceFile source) {
					String root = ApplicationConfig.moduleRoot(source.getSourcePath());
					if (ApplicationConfig.isApplicationYaml(source.getSourcePath()) && root != null) {
						accumulator.modulesWithYaml.add(root);
					}
					else if (ApplicationConfig.isApplicationProperties(source.getSourcePath()) && root != null) {
						accumulator.modulesWithProperties.add(root);
					}
					else if (source instanceof JavaSourceFile java) {
						scan(java, root, accumulator);
					}
				}
				return tree;
			}
		};
	}

	/**
	 * @param java a Java source before the migration
	 * @return whether it still uses Spring Retry after this recipe (an API it does not move, a class left with a note)
	 */
	static boolean staysAfterMigration(JavaSourceFile java) {
		Accumulator accumulator = new Accumulator();
		scan(java, null, accumulator);
		return accumulator.springRetryStays;
	}

	private static void scan(JavaSourceFile java, @Nullable String root, Accumulator accumulator) {
		if (SpringRetryTemplateUsage.usesApi(java) && !SpringRetryTemplateUsage.unmappable(java).isEmpty()) {
			accumulator.springRetryStays = true;
		}
		new JavaIsoVisitor<Integer>() {
			@Override
			public J.ClassDeclaration visitClassDeclaration(J.ClassDeclaration classDeclaration, Integer p) {
				ClassPlan plan = ClassPlan.of(classDeclaration, getCursor());
				if (!plan.unmapped.isEmpty()) {
					accumulator.springRetryStays = true;
				}
				else if (root != null) {
					plan.settings.forEach((instance, settings) -> settings.forEach((path, value) -> {
						List<String> segments = new ArrayList<>(List.of("retry", "instances", instance));
						segments.addAll(List.of(path.split("\\.")));
						accumulator.settings.computeIfAbsent(root, (key) -> new PropertyTree()).put(segments, value);
					}));
				}
				return super.visitClassDeclaration(classDeclaration, p);
			}
		}.visit(java, 0);
	}

	@Override
	public Collection<? extends SourceFile> generate(Accumulator accumulator, ExecutionContext context) {
		List<SourceFile> generated = new ArrayList<>();
		accumulator.settings.forEach((root, tree) -> {
			if (!accumulator.modulesWithYaml.contains(root) && !accumulator.modulesWithProperties.contains(root)) {
				generated.add(ApplicationConfig.newYaml(root, tree));
			}
		});
		return generated;
	}

	@Override
	public TreeVisitor<?, ExecutionContext> getVisitor(Accumulator accumulator) {
		return new TreeVisitor<>() {
			@Override
			public @Nullable Tree visit(@Nullable Tree tree, ExecutionContext context) {
				if (!(tree instanceof SourceFile source)) {
					return tree;
				}
				String root = ApplicationConfig.moduleRoot(source.getSourcePath());
				PropertyTree settings = (root != null) ? accumulator.settings.get(root) : null;
				if (tree instanceof Yaml.Documents yaml && settings != null && ApplicationConfig.isApplicationYaml(source.getSourcePath())) {
					return ApplicationConfig.mergeInto(yaml, settings, context);
				}
				if (tree instanceof Properties.File properties && settings != null
						&& ApplicationConfig.isApplicationProperties(source.getSourcePath())
						&& !accumulator.modulesWithYaml.contains(root)) {
					return ApplicationConfig.addTo(properties, settings, context);
				}
				if (tree instanceof JavaSourceFile) {
					return new AnnotationsVisitor(accumulator.springRetryStays).visit(tree, context);
				}
				return tree;
			}
		};
	}

	/** Rewrites the annotations of one Java file. */
	private final class AnnotationsVisitor extends JavaIsoVisitor<ExecutionContext> {

		private final boolean springRetryStays;

		private final Map<UUID, ClassPlan> plans = new HashMap<>();

		AnnotationsVisitor(boolean springRetryStays) {
			this.springRetryStays = springRetryStays;
		}

		@Override
		public J.ClassDeclaration visitClassDeclaration(J.ClassDeclaration classDeclaration, ExecutionContext context) {
			ClassPlan plan = ClassPlan.of(classDeclaration, getCursor());
			this.plans.put(classDeclaration.getId(), plan);
			J.ClassDeclaration visited = super.visitClassDeclaration(classDeclaration, context);
			if (plan.unmapped.isEmpty() || MigrationNotes.hasNote(visited.getPrefix())) {
				return visited;
			}
			String path = getCursor().firstEnclosingOrThrow(JavaSourceFile.class).getSourcePath().toString();
			plan.unmapped.forEach((element, reason) -> unmapped.insertRow(context, new UnmappedElements.Row(path, element, reason)));
			String reason = "Spring Retry kept in this class: " + String.join("; ", plan.unmapped.values());
			return visited.withPrefix(MigrationNotes.withNote(visited.getPrefix(), reason));
		}

		@Override
		public J.Annotation visitAnnotation(J.Annotation annotation, ExecutionContext context) {
			J.Annotation visited = super.visitAnnotation(annotation, context);
			if (TypeUtils.isOfClassType(visited.getType(), SPRING_ENABLE_RETRY)) {
				if (!this.springRetryStays) {
					doAfterVisit(new RemoveAnnotationVisitor(new AnnotationMatcher("@" + SPRING_ENABLE_RETRY)));
				}
				return visited;
			}
			J.ClassDeclaration owner = getCursor().firstEnclosing(J.ClassDeclaration.class);
			ClassPlan plan = (owner != null) ? this.plans.get(owner.getId()) : null;
			String text = (plan != null && plan.unmapped.isEmpty()) ? plan.replacements.get(visited.getId()) : null;
			if (text == null) {
				return visited;
			}
			J.Annotation replaced = JavaTemplate.builder(text).contextSensitive().javaParser(RetrykitStubs.parser()).build()
				.apply(getCursor(), visited.getCoordinates().replace());
			for (String type : ANNOTATIONS) {
				maybeRemoveImport(type);
			}
			doAfterVisit(ShortenFullyQualifiedTypeReferences.modifyOnly(replaced));
			return replaced;
		}

	}

	/**
	 * What to do with the Spring Retry annotations of one class (its type and its methods, not nested classes):
	 * the replacement of each, by annotation id, or what cannot be mapped.
	 */
	static final class ClassPlan {

		final Map<UUID, String> replacements = new HashMap<>();

		final Map<String, Map<String, String>> settings = new LinkedHashMap<>();

		final Map<String, String> unmapped = new LinkedHashMap<>();

		static ClassPlan of(J.ClassDeclaration classDeclaration, Cursor cursor) {
			ClassPlan plan = new ClassPlan();
			String className = classDeclaration.getSimpleName();
			for (J.Annotation annotation : classDeclaration.getLeadingAnnotations()) {
				plan.add(annotation, null, cursor);
			}
			for (org.openrewrite.java.tree.Statement statement : classDeclaration.getBody().getStatements()) {
				if (statement instanceof J.MethodDeclaration method) {
					for (J.Annotation annotation : method.getLeadingAnnotations()) {
						plan.add(annotation, className + "." + method.getSimpleName(), cursor);
					}
				}
			}
			return plan;
		}

		private void add(J.Annotation annotation, @Nullable String defaultName, Cursor cursor) {
			AnnotationArguments arguments = AnnotationArguments.of(annotation, (expression) -> expression.printTrimmed(cursor));
			SpringRetryAnnotationMapping.Result result;
			String element;
			if (TypeUtils.isOfClassType(annotation.getType(), SPRING_RETRYABLE)) {
				result = SpringRetryAnnotationMapping.retryable(arguments, defaultName);
				element = "@Retryable";
			}
			else if (TypeUtils.isOfClassType(annotation.getType(), SPRING_CIRCUIT_BREAKER)) {
				result = SpringRetryAnnotationMapping.circuitBreaker(arguments, defaultName);
				element = "@CircuitBreaker";
			}
			else if (TypeUtils.isOfClassType(annotation.getType(), SPRING_RECOVER)) {
				this.replacements.put(annotation.getId(), "@dev.retrykit.annotation.Recover");
				return;
			}
			else {
				return;
			}
			element = element + " on " + ((defaultName != null) ? defaultName : "the type");
			if (result.text() == null) {
				this.unmapped.put(element, String.valueOf(result.reason()));
				return;
			}
			this.replacements.put(annotation.getId(), result.text());
			if (result.instance() != null) {
				this.settings.computeIfAbsent(result.instance(), (name) -> new LinkedHashMap<>()).putAll(result.settings());
			}
		}

	}

}
