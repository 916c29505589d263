package dev.retrykit.migrate;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import org.openrewrite.ExecutionContext;
import org.openrewrite.Recipe;
import org.openrewrite.Tree;
import org.openrewrite.TreeVisitor;
import org.openrewrite.java.ChangeType;
import org.openrewrite.java.JavaVisitor;
import org.openrewrite.java.JavaTemplate;
import org.openrewrite.java.ShortenFullyQualifiedTypeReferences;
import org.openrewrite.java.tree.Expression;
import org.openrewrite.java.tree.J;
import org.openrewrite.java.tree.JavaSourceFile;
import org.openrewrite.java.tree.JavaType;
import org.openrewrite.java.tree.TypeUtils;

/**
 * Moves programmatic Spring Retry to retrykit's core API: a {@code RetryTemplate.builder()} chain becomes retrykit's
 * builder with the same policy (Spring Retry's builder waits not at all unless told, so a chain without a backoff gets
 * {@code BackoffPolicy.none()}); {@code RetryTemplate}, {@code RetryCallback}, {@code RecoveryCallback},
 * {@code RetryContext} and {@code RetryState} become retrykit's, whose {@code execute} methods have the same shapes;
 * {@code new DefaultRetryState(key[, forceRefresh])} becomes {@code RetryState.of(...)}.
 *
 * <p>A file is migrated whole or not at all ({@link SpringRetryTemplateUsage}); one that is not gets a comment on its
 * first type with the reasons and rows in {@link UnmappedElements}.
 */
public final class SpringRetryTemplateToRetrykit extends Recipe {

	/** Makes the recipe; OpenRewrite creates it by its name. */
	public SpringRetryTemplateToRetrykit() {
	}

	private final transient UnmappedElements unmapped = new UnmappedElements(this);

	@Override
	public String getDisplayName() {
		return "Spring Retry RetryTemplate to retrykit";
	}

	@Override
	public String getDescription() {
		return "Moves `RetryTemplate.builder()` chains, `execute` with `RetryCallback`, `RecoveryCallback` and `RetryState` "
				+ "from Spring Retry to retrykit's core API with the same policy.";
	}

	@Override
	public TreeVisitor<?, ExecutionContext> getVisitor() {
		return new JavaVisitor<>() {

			private boolean mapped;

			@Override
			public @Nullable J visit(@Nullable Tree tree, ExecutionContext context) {
				if (tree instanceof JavaSourceFile java) {
					this.mapped = false;
					if (!SpringRetryTemplateUsage.usesApi(java)) {
						return java;
					}
					Set<String> reasons = SpringRetryTemplateUsage.unmappable(java);
					if (!reasons.isEmpty()) {
						return note(java, reasons, context);
					}
					this.mapped = true;
					SpringRetryTemplateUsage.TYPES.forEach((from, to) -> doAfterVisit(new ChangeType(from, to, true).getVisitor()));
				}
				return super.visit(tree, context);
			}

			@Override
			public J visitMethodInvocation(J.MethodInvocation invocation, ExecutionContext context) {
				J result = super.visitMethodInvocation(invocation, context);
				if (!(result instanceof J.MethodInvocation visited)) {
					return result;
				}
				JavaType.Method method = visited.getMethodType();
				if (!this.mapped || !visited.getSimpleName().equals("build") || method == null
						|| !TypeUtils.isOfClassType(method.getDeclaringType(), SpringRetryTemplateUsage.BUILDER)) {
					return visited;
				}
				BuilderChain chain = BuilderChain.of(visited);
				if (chain == null) {
					return visited;
				}
				J replaced = JavaTemplate.builder(chain.text()).contextSensitive().javaParser(RetrykitStubs.parser())
					.build()
					.apply(getCursor(), visited.getCoordinates().replace(), chain.arguments().toArray());
				doAfterVisit(ShortenFullyQualifiedTypeReferences.modifyOnly(replaced));
				return replaced;
			}

			@Override
			public J visitNewClass(J.NewClass newClass, ExecutionContext context) {
				J visited = super.visitNewClass(newClass, context);
				if (!this.mapped || !(visited instanceof J.NewClass created)
						|| !TypeUtils.isOfClassType(created.getType(), SpringRetryTemplateUsage.DEFAULT_STATE)) {
					return visited;
				}
				List<Expression> arguments = created.getArguments();
				String text = "dev.retrykit.RetryState.of(" + ((arguments.size() == 2) ? "#{any()}, #{any(boolean)}" : "#{any()}") + ")";
				J replaced = JavaTemplate.builder(text).contextSensitive().javaParser(RetrykitStubs.parser()).build()
					.apply(getCursor(), created.getCoordinates().replace(), arguments.toArray());
				maybeRemoveImport(SpringRetryTemplateUsage.DEFAULT_STATE);
				doAfterVisit(ShortenFullyQualifiedTypeReferences.modifyOnly(replaced));
				return replaced;
			}

			private JavaSourceFile note(JavaSourceFile java, Set<String> reasons, ExecutionContext context) {
				if (!(java instanceof J.CompilationUnit unit) || unit.getClasses().isEmpty()) {
					return java;
				}
				J.ClassDeclaration first = unit.getClasses().get(0);
				if (MigrationNotes.hasNote(first.getPrefix())) {
					return java;
				}
				for (String reason : reasons) {
					unmapped.insertRow(context, new UnmappedElements.Row(java.getSourcePath().toString(), "Spring Retry API", reason));
				}
				String note = "Spring Retry's API kept in this file: " + String.join("; ", reasons);
				List<J.ClassDeclaration> classes = new ArrayList<>(unit.getClasses());
				classes.set(0, first.withPrefix(MigrationNotes.withNote(first.getPrefix(), note)));
				return unit.withClasses(classes);
			}

		};
	}

}
