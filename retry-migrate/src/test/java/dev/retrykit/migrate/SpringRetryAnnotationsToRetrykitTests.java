package dev.retrykit.migrate;

import org.junit.jupiter.api.Test;
import org.openrewrite.java.JavaParser;
import org.openrewrite.test.RecipeSpec;
import org.openrewrite.test.RewriteTest;

import static org.openrewrite.java.Assertions.java;
import static org.openrewrite.java.Assertions.mavenProject;
import static org.openrewrite.java.Assertions.srcMainJava;
import static org.openrewrite.java.Assertions.srcMainResources;
import static org.openrewrite.yaml.Assertions.yaml;

class SpringRetryAnnotationsToRetrykitTests implements RewriteTest {

	@Override
	public void defaults(RecipeSpec spec) {
		spec.recipe(new SpringRetryAnnotationsToRetrykit())
			.parser(JavaParser.fromJavaVersion().classpath("spring-retry"));
	}

	@Test
	void retryableWithBackoffBecomesRetrykitsWithTheSameBehaviour() {
		rewriteRun(java("""
				import java.io.IOException;

				import org.springframework.retry.annotation.Backoff;
				import org.springframework.retry.annotation.Retryable;

				class Inventory {

					@Retryable(retryFor = IOException.class, maxAttempts = 4, backoff = @Backoff(delay = 200, multiplier = 2, maxDelay = 5000))
					String stock(String sku) throws IOException {
						return sku;
					}

				}
				""", """
				import dev.retrykit.annotation.Backoff;
				import dev.retrykit.annotation.Retryable;

				import java.io.IOException;

				class Inventory {

					@Retryable(maxAttempts = 4, backoff = @Backoff(delay = 200, maxDelay = 5000, multiplier = 2.0, type = "exponential"), retryFor = IOException.class)
					String stock(String sku) throws IOException {
						return sku;
					}

				}
				"""));
	}

}
