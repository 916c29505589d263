package dev.retrykit.migrate;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

import org.jspecify.annotations.Nullable;
import org.openrewrite.ExecutionContext;
import org.openrewrite.Recipe;
import org.openrewrite.TreeVisitor;
import org.openrewrite.java.JavaIsoVisitor;
import org.openrewrite.java.JavaTemplate;
import org.openrewrite.java.ShortenFullyQualifiedTypeReferences;
import org.openrewrite.internal.ListUtils;
import org.openrewrite.java.tree.J;
import org.openrewrite.java.tree.Space;
import org.openrewrite.java.tree.JavaSourceFile;
import org.openrewrite.java.tree.JavaType;
import org.openrewrite.java.tree.Statement;
import org.openrewrite.java.tree.TypeUtils;

/**
 * Moves Resilience4j's {@code @Retry(name, fallbackMethod)} and {@code @CircuitBreaker(name, fallbackMethod)} to
 * retrykit's {@code @Retryable(value = name, recover = fallbackMethod)} (one attempt per call for a breaker alone), and
 * makes each fallback method a {@code @Recover} method: its trailing exception parameter moves to the front, where
 * retrykit expects it. A method without a fallback in a class with recover methods gets
 * {@code recover = Retryable.NO_RECOVERY}: a {@code @Recover} method would otherwise recover it too.
 *
 * <p>As for Spring Retry, a class is migrated whole or not at all; what cannot be mapped gets a comment and a row in
 * {@link UnmappedElements}. The configuration of the instances is moved by {@link Resilience4jConfigToRetrykit}.
 */
public final class Resilience4jAnnotationsToRetrykit extends Recipe {

	/** Makes the recipe; OpenRewrite creates it by its name. */
	public Resilience4jAnnotationsToRetrykit() {
	}

	private final transient UnmappedElements unmapped = new UnmappedElements(this);

	@Override
	public String getDisplayName() {
		return "Resilience4j annotations to retrykit";
	}

	@Override
	public String getDescription() {
		return "Moves `@Retry` and `@CircuitBreaker` with their `fallbackMethod` to retrykit's `@Retryable` and `@Recover`.";
	}

	/**
	 * @param java a Java source before the migration
	 * @return whether it still uses Resilience4j after this recipe (an API it does not move, a class left with a note)
	 */
	static boolean staysAfterMigration(JavaSourceFile java) {
		for (JavaType type : java.getTypesInUse().getTypesInUse()) {
			if (type instanceof JavaType.FullyQualified named && isApi(named.getFullyQualifiedName())) {
				return true;
			}
		}
		boolean[] stays = { false };
		new JavaIsoVisitor<Integer>() {
			@Override
			public J.ClassDeclaration visitClassDeclaration(J.ClassDeclaration classDeclaration, Integer p) {
				stays[0] |= !Resilience4jClassPlan.of(classDeclaration, getCursor()).unmapped.isEmpty();
				return super.visitClassDeclaration(classDeclaration, p);
			}
		}.visit(java, 0);
		return stays[0];
	}

	/** @return whether the type is Resilience4j's, other than the two annotations the recipe moves */
	private static boolean isApi(String type) {
		return type.startsWith("io.github.resilience4j.") && !type.equals(Resilience4jClassPlan.RETRY)
				&& !type.equals(Resilience4jClassPlan.CIRCUIT_BREAKER);
	}

	@Override
	public TreeVisitor<?, ExecutionContext> getVisitor() {
		return new JavaIsoVisitor<>() {

			private final Map<UUID, Resilience4jClassPlan> plans = new HashMap<>();

			@Override
			public J.CompilationUnit visitCompilationUnit(J.CompilationUnit unit, ExecutionContext context) {
				J.CompilationUnit visited = super.visitCompilationUnit(unit, context);
				Set<String> apis = new TreeSet<>();
				for (JavaType type : unit.getTypesInUse().getTypesInUse()) {
					if (type instanceof JavaType.FullyQualified named && isApi(named.getFullyQualifiedName())) {
						apis.add(named.getClassName());
					}
				}
				if (apis.isEmpty() || visited.getClasses().isEmpty() || MigrationNotes.hasNote(visited.getClasses().get(0).getPrefix())) {
					return visited;
				}
				String reason = "Resilience4j's " + String.join(", ", apis) + " kept: no retrykit equivalent in code; "
						+ "configure the instance under retry.* (a RetryTemplateCustomizer bean for what properties cannot say)";
				unmapped.insertRow(context, new UnmappedElements.Row(unit.getSourcePath().toString(), String.join(", ", apis), reason));
				List<J.ClassDeclaration> classes = new ArrayList<>(visited.getClasses());
				classes.set(0, classes.get(0).withPrefix(MigrationNotes.withNote(classes.get(0).getPrefix(), reason)));
				return visited.withClasses(classes);
			}

			@Override
			public J.ClassDeclaration visitClassDeclaration(J.ClassDeclaration classDeclaration, ExecutionContext context) {
				Resilience4jClassPlan plan = Resilience4jClassPlan.of(classDeclaration, getCursor());
				if (plan.unmapped.isEmpty()) {
					this.plans.put(classDeclaration.getId(), plan);
					return super.visitClassDeclaration(classDeclaration, context);
				}
				J.ClassDeclaration visited = super.visitClassDeclaration(classDeclaration, context);
				if (MigrationNotes.hasNote(visited.getPrefix())) {
					return visited;
				}
				String path = getCursor().firstEnclosingOrThrow(JavaSourceFile.class).getSourcePath().toString();
				plan.unmapped.forEach((element, reason) -> unmapped.insertRow(context, new UnmappedElements.Row(path, element, reason)));
				String reason = "Resilience4j kept in this class: " + String.join("; ", plan.unmapped.values());
				return visited.withPrefix(MigrationNotes.withNote(visited.getPrefix(), reason));
			}

			@Override
			public J.MethodDeclaration visitMethodDeclaration(J.MethodDeclaration method, ExecutionContext context) {
				Resilience4jClassPlan plan = plan();
				if (plan == null) {
					return super.visitMethodDeclaration(method, context);
				}
				J.MethodDeclaration edited = withoutRemovedAnnotations(method, plan);
				edited = super.visitMethodDeclaration(edited, context);
				if (plan.fallbacks.contains(method.getId())) {
					edited = exceptionFirst(edited);
					boolean annotated = edited.getLeadingAnnotations().stream()
						.anyMatch((a) -> TypeUtils.isOfClassType(a.getType(), "dev.retrykit.annotation.Recover"));
					if (!annotated) {
						edited = keepIndent(edited, JavaTemplate.builder("@dev.retrykit.annotation.Recover").javaParser(RetrykitStubs.parser())
							.build()
							.apply(updateCursor(edited), edited.getCoordinates().addAnnotation(Comparator.comparing(J.Annotation::getSimpleName))));
						doAfterVisit(ShortenFullyQualifiedTypeReferences.modifyOnly(edited));
					}
				}
				return edited;
			}

			@Override
			public J.Annotation visitAnnotation(J.Annotation annotation, ExecutionContext context) {
				J.Annotation visited = super.visitAnnotation(annotation, context);
				Resilience4jClassPlan plan = plan();
				String text = (plan != null) ? plan.replacements.get(visited.getId()) : null;
				if (text == null) {
					return visited;
				}
				J.Annotation replaced = JavaTemplate.builder(text).contextSensitive().javaParser(RetrykitStubs.parser()).build()
					.apply(getCursor(), visited.getCoordinates().replace());
				maybeRemoveImport(Resilience4jClassPlan.RETRY);
				maybeRemoveImport(Resilience4jClassPlan.CIRCUIT_BREAKER);
				doAfterVisit(ShortenFullyQualifiedTypeReferences.modifyOnly(replaced));
				return replaced;
			}

			private @Nullable Resilience4jClassPlan plan() {
				J.ClassDeclaration owner = getCursor().firstEnclosing(J.ClassDeclaration.class);
				return (owner != null) ? this.plans.get(owner.getId()) : null;
			}

		};
	}

	/**
	 * @return the method with an annotation added at the front, indented as the method was (the template's formatter
	 * guesses the indentation of a small file wrong)
	 */
	private static J.MethodDeclaration keepIndent(J.MethodDeclaration before, J.MethodDeclaration after) {
		if (!before.getLeadingAnnotations().isEmpty() || after.getLeadingAnnotations().isEmpty()) {
			return after;
		}
		String whitespace = before.getPrefix().getWhitespace();
		Space lineStart = Space.format("\n" + whitespace.substring(whitespace.lastIndexOf('\n') + 1));
		// ListUtils.mapFirst returns null only for a null list.
		J.MethodDeclaration result = after.withPrefix(before.getPrefix()).withLeadingAnnotations(Objects.requireNonNull(
				ListUtils.mapFirst(after.getLeadingAnnotations(), (a) -> a.withPrefix(Space.EMPTY))));
		if (!result.getModifiers().isEmpty()) {
			return result.withModifiers(
					Objects.requireNonNull(ListUtils.mapFirst(result.getModifiers(), (m) -> m.withPrefix(lineStart))));
		}
		if (result.getTypeParameters() != null) {
			return result;
		}
		return (result.getReturnTypeExpression() != null)
				? result.withReturnTypeExpression(result.getReturnTypeExpression().withPrefix(lineStart)) : result;
	}

	private static J.MethodDeclaration withoutRemovedAnnotations(J.MethodDeclaration method, Resilience4jClassPlan plan) {
		List<J.Annotation> kept = new ArrayList<>();
		for (J.Annotation annotation : method.getLeadingAnnotations()) {
			if (!plan.removals.contains(annotation.getId())) {
				kept.add(kept.isEmpty() ? annotation.withPrefix(method.getLeadingAnnotations().get(0).getPrefix()) : annotation);
			}
		}
		return (kept.size() == method.getLeadingAnnotations().size()) ? method : method.withLeadingAnnotations(kept);
	}

	/** Moves a trailing Throwable parameter to the front, where retrykit's recover methods take it. */
	private static J.MethodDeclaration exceptionFirst(J.MethodDeclaration method) {
		List<Statement> parameters = method.getParameters();
		JavaType.Method type = method.getMethodType();
		if (parameters.size() < 2 || type == null || type.getParameterTypes().size() != parameters.size()
				|| !TypeUtils.isAssignableTo("java.lang.Throwable", type.getParameterTypes().get(parameters.size() - 1))) {
			return method;
		}
		List<Statement> moved = new ArrayList<>();
		moved.add(parameters.get(parameters.size() - 1));
		moved.addAll(parameters.subList(0, parameters.size() - 1));
		for (int i = 0; i < moved.size(); i++) {
			moved.set(i, moved.get(i).withPrefix(parameters.get(i).getPrefix()));
		}
		List<JavaType> types = new ArrayList<>(type.getParameterTypes());
		types.add(0, types.remove(types.size() - 1));
		List<String> names = new ArrayList<>(type.getParameterNames());
		names.add(0, names.remove(names.size() - 1));
		return method.withParameters(moved).withMethodType(type.withParameterTypes(types).withParameterNames(names));
	}

}
