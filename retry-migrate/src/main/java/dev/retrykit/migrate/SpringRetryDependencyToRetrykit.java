package dev.retrykit.migrate;

import org.openrewrite.java.tree.JavaSourceFile;

/**
 * Replaces {@code org.springframework.retry:spring-retry} with retrykit's starter, and drops the AOP starter when
 * nothing else needs it; keeps Spring Retry (and adds the starter) when code still uses it after the migration.
 */
public final class SpringRetryDependencyToRetrykit extends DependenciesToRetrykitStarter {

	/** Makes the recipe; OpenRewrite creates it by its name. */
	public SpringRetryDependencyToRetrykit() {
	}

	@Override
	public String getDisplayName() {
		return "Spring Retry dependency to retrykit's starter";
	}

	@Override
	public String getDescription() {
		return "Replaces `spring-retry` with `dev.retrykit:retry-spring-boot-starter` in Maven poms and Gradle build scripts, "
				+ "and removes `spring-boot-starter-aop` (or `-aspectj`) when no code uses AspectJ itself; keeps Spring Retry "
				+ "while code still uses it.";
	}

	@Override
	boolean isLibrary(String groupId, String artifactId) {
		return "org.springframework.retry".equals(groupId) && "spring-retry".equals(artifactId);
	}

	@Override
	boolean staysAfterMigration(JavaSourceFile java) {
		return SpringRetryAnnotationsToRetrykit.staysAfterMigration(java);
	}

}
