package dev.retrykit.migrate;

import org.junit.jupiter.api.Test;
import org.openrewrite.test.RecipeSpec;
import org.openrewrite.test.RewriteTest;

import static org.openrewrite.java.Assertions.java;
import static org.openrewrite.xml.Assertions.xml;

class SpringRetryDependencyToRetrykitTests implements RewriteTest {

	private static final String VERSION = DependenciesToRetrykitStarter.retrykitVersion();

	@Override
	public void defaults(RecipeSpec spec) {
		spec.recipe(new SpringRetryDependencyToRetrykit()).parser(RetrykitStubs.parser().classpath("spring-retry"));
	}

	@Test
	void springRetryAndTheAopStarterItNeededBecomeTheStarter() {
		rewriteRun(java("""
				import org.springframework.retry.annotation.Retryable;

				class Inventory {
					@Retryable
					String stock() {
						return "";
					}
				}
				"""), xml(pom("""
				    <dependency>
				      <groupId>org.springframework.retry</groupId>
				      <artifactId>spring-retry</artifactId>
				    </dependency>
				    <dependency>
				      <groupId>org.springframework.boot</groupId>
				      <artifactId>spring-boot-starter-aop</artifactId>
				    </dependency>
				    <dependency>
				      <groupId>org.springframework.boot</groupId>
				      <artifactId>spring-boot-starter-web</artifactId>
				    </dependency>
				"""), pom("""
				    <dependency>
				      <groupId>org.springframework.boot</groupId>
				      <artifactId>spring-boot-starter-web</artifactId>
				    </dependency>
				    <dependency>
				      <groupId>dev.retrykit</groupId>
				      <artifactId>retry-spring-boot-starter</artifactId>
				      <version>%s</version>
				    </dependency>
				""".formatted(VERSION)), (spec) -> spec.path("pom.xml")));
	}

	@Test
	void theAopStarterStaysWhenTheProjectHasItsOwnAspects() {
		rewriteRun((spec) -> spec.parser(RetrykitStubs.parser().classpath("spring-retry", "aspectjweaver")), java("""
				import org.aspectj.lang.annotation.Aspect;

				@Aspect
				class Auditing {
				}
				"""), xml(pom("""
				    <dependency>
				      <groupId>org.springframework.retry</groupId>
				      <artifactId>spring-retry</artifactId>
				    </dependency>
				    <dependency>
				      <groupId>org.springframework.boot</groupId>
				      <artifactId>spring-boot-starter-aop</artifactId>
				    </dependency>
				"""), pom("""
				    <dependency>
				      <groupId>org.springframework.boot</groupId>
				      <artifactId>spring-boot-starter-aop</artifactId>
				    </dependency>
				    <dependency>
				      <groupId>dev.retrykit</groupId>
				      <artifactId>retry-spring-boot-starter</artifactId>
				      <version>%s</version>
				    </dependency>
				""".formatted(VERSION)), (spec) -> spec.path("pom.xml")));
	}

	@Test
	void springRetryStaysBesideTheStarterWhileCodeStillUsesIt() {
		rewriteRun(java("""
				import org.springframework.retry.support.RetryTemplate;

				class Jobs {
					RetryTemplate template = new RetryTemplate();
				}
				"""), xml(pom("""
				    <dependency>
				      <groupId>org.springframework.retry</groupId>
				      <artifactId>spring-retry</artifactId>
				    </dependency>
				"""), pom("""
				    <dependency>
				      <groupId>org.springframework.retry</groupId>
				      <artifactId>spring-retry</artifactId>
				    </dependency>
				    <dependency>
				      <groupId>dev.retrykit</groupId>
				      <artifactId>retry-spring-boot-starter</artifactId>
				      <version>%s</version>
				    </dependency>
				""".formatted(VERSION)), (spec) -> spec.path("pom.xml")));
	}

	@Test
	void aPomWithoutSpringRetryIsLeftAlone() {
		rewriteRun(xml(pom("""
				    <dependency>
				      <groupId>org.springframework.boot</groupId>
				      <artifactId>spring-boot-starter-aop</artifactId>
				    </dependency>
				"""), (spec) -> spec.path("pom.xml")));
	}

	static String pom(String dependencies) {
		return """
				<project>
				  <modelVersion>4.0.0</modelVersion>
				  <groupId>com.example</groupId>
				  <artifactId>shop</artifactId>
				  <version>1.0</version>
				  <dependencies>
				%s  </dependencies>
				</project>
				""".formatted(dependencies);
	}

}
