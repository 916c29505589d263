package dev.retrykit.spring.boot.aop;

import java.io.IOException;

import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Recover;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryFailureAnalyzer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

class UnfitRecoverTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new);

	@Test
	void anUnnamedRecoverMethodWithTheWrongReturnTypeFailsStartupNamingBothMethods() {
		this.runner.withBean(WrongReturnType.class, WrongReturnType::new).run(context -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new RetryFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("@Recover", "WrongReturnType.fallback(IOException, String)",
					"fits no @Retryable method", "hello(String)", "returns Integer", "not String");
		});
	}

	@Test
	void anUnnamedRecoverMethodWithTheWrongParametersFailsStartupNamingBothMethods() {
		this.runner.withBean(WrongParameters.class, WrongParameters::new).run(context -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new RetryFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("WrongParameters.fallback(IOException, Integer)",
					"hello(String)", "parameters");
			assertThat(analysis.getAction()).contains("@Retryable(recover");
		});
	}

	@Test
	void aNamedRecoverMethodWithTheWrongReturnTypeFailsStartupSayingSo() {
		this.runner.withBean(NamedWrongReturnType.class, NamedWrongReturnType::new).run(context -> {
			FailureAnalysis analysis = new RetryFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("NamedWrongReturnType.hello(String)",
					"fallback(IOException, String) returns Integer, not String");
		});
	}

	@Test
	void aRecoverMethodThatFitsOneOfItsClassesRetryableMethodsStarts() {
		this.runner.withBean(OneFits.class, OneFits::new).run(context -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(OneFits.class).count("x")).isEqualTo(-1);
		});
	}

	public static class WrongReturnType {

		@Retryable
		public String hello(String name) {
			return "hello " + name;
		}

		@Recover
		public Integer fallback(IOException failure, String name) {
			return 0;
		}

	}

	public static class WrongParameters {

		@Retryable
		public String hello(String name) {
			return "hello " + name;
		}

		@Recover
		public String fallback(IOException failure, Integer name) {
			return "x";
		}

	}

	public static class NamedWrongReturnType {

		@Retryable(recover = "fallback")
		public String hello(String name) {
			return "hello " + name;
		}

		@Recover
		public Integer fallback(IOException failure, String name) {
			return 0;
		}

	}

	public static class OneFits {

		@Retryable
		public String hello(String name) {
			return "hello " + name;
		}

		@Retryable
		public int count(String name) throws IOException {
			throw new IOException("down");
		}

		@Recover
		public int fallback(IOException failure, String name) {
			return -1;
		}

	}

}
