package dev.retrykit.spring.boot.autoconfigure;

import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.WebServer;
import org.springframework.boot.web.server.servlet.ServletWebServerFactory;
import org.springframework.boot.web.server.servlet.context.AnnotationConfigServletWebServerApplicationContext;

import static dev.retrykit.spring.boot.autoconfigure.RetryFailureAnalysisTests.analysis;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * {@code retry.*} is validated before the web server starts, so that the failure analysis is the first and
 * only error of a failed start.
 */
@ExtendWith(OutputCaptureExtension.class)
class RetryEarlyValidationTests {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner(
			AnnotationConfigServletWebServerApplicationContext::new)
		.withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class));

	@Test
	void anInvalidValueFailsStartupBeforeTheWebServerIsCreated() {
		AtomicBoolean webServerCreated = new AtomicBoolean();
		this.runner.withBean(ServletWebServerFactory.class, () -> initializers -> {
			webServerCreated.set(true);
			return new IdleWebServer();
		}).withPropertyValues("retry.instances.inventory.max-attempts=0").run(context -> {
			assertThat(analysis(context.getStartupFailure()).getDescription())
				.contains("'retry.instances.inventory.max-attempts'");
			assertThat(webServerCreated).as("web server created").isFalse();
		});
	}

	@Test
	void anUnknownKeyAndABeanNameAreCheckedBeforeTheWebServerIsCreated() {
		AtomicBoolean webServerCreated = new AtomicBoolean();
		WebApplicationContextRunner runner = this.runner.withBean(ServletWebServerFactory.class, () -> initializers -> {
			webServerCreated.set(true);
			return new IdleWebServer();
		});
		runner.withPropertyValues("retry.instances.inventory.max-atempts=2").run(context -> {
			assertThat(analysis(context.getStartupFailure()).getDescription()).contains("max-atempts");
			assertThat(webServerCreated).isFalse();
		});
		runner.withPropertyValues("retry.instances.inventory.retry-on-result=missingPredicate").run(context -> {
			assertThat(analysis(context.getStartupFailure()).getDescription()).contains("missingPredicate");
			assertThat(webServerCreated).isFalse();
		});
	}

	@Test
	void aFailedStartLogsTheFailureAnalysisAsItsOnlyError(CapturedOutput output) {
		SpringApplication application = new SpringApplication(App.class);
		application.setWebApplicationType(WebApplicationType.SERVLET);
		assertThatException().isThrownBy(() -> application.run("--server.port=0",
				"--retry.instances.inventory.max-attempts=0", "--spring.main.banner-mode=off"));
		assertThat(output.toString()).contains("APPLICATION FAILED TO START", "'retry.instances.inventory.max-attempts'")
			.doesNotContain("Tomcat initialized", "Tomcat started", "Starting service");
		assertThat(output.toString().lines().filter(line -> line.contains("ERROR"))).hasSize(1);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

	}

	private static final class IdleWebServer implements WebServer {

		@Override
		public void start() {
		}

		@Override
		public void stop() {
		}

		@Override
		public int getPort() {
			return 0;
		}

	}

}
