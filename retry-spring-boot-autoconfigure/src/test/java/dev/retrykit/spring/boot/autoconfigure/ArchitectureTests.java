package dev.retrykit.spring.boot.autoconfigure;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

class ArchitectureTests {

	private final JavaClasses spring = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("dev.retrykit.spring");

	@Test
	void theSpringModulesPackagesHaveNoCycle() {
		// "(**)" after "spring." makes every package its own slice, the root package dev.retrykit.spring.boot
		// ("boot") included.
		slices().matching("dev.retrykit.spring.(**)")
			.should().beFreeOfCycles()
			.because("auto-configurations depend on the runtime packages, never the other way round")
			.check(this.spring);
	}

	@Test
	void theSpringModuleUsesOnlyTheCorePublicApi() {
		noClasses().should().dependOnClassesThat().resideInAPackage("dev.retrykit.internal..")
			.because("the Spring module converts properties to core configs at its edge, through the public API")
			.check(this.spring);
	}

	@Test
	void onlyTheHttpPackageTouchesSpringWebAndOnlyTheReactiveVariantTouchesReactor() {
		noClasses().that().resideOutsideOfPackage("dev.retrykit.spring.boot.http..")
			// The endpoint's answer to an unreadable body on Spring MVC: created only when Spring MVC is present.
			.and().doNotHaveSimpleName("RetriesEndpointUnreadableBodyResolver")
			// The HTTP clients' auto-configuration: each of its parts is guarded by @ConditionalOnClass.
			.and().haveNameNotMatching("dev\\.retrykit\\.spring\\.boot\\.autoconfigure\\.RetryHttpClientAutoConfiguration.*")
			.should().dependOnClassesThat().resideInAnyPackage("org.springframework.web..")
			.because("spring-web and spring-webflux are optional")
			.check(this.spring);
		noClasses().that().doNotHaveSimpleName("ReactiveMethodRetry").and().doNotHaveSimpleName("ReactiveTypes")
			.and().doNotHaveSimpleName("SuspendMethodRetry").and().doNotHaveSimpleName("FlowMethodRetry")
			.and().doNotHaveSimpleName("KotlinCoroutines")
			// WebClient's retried exchange, and the auto-configuration that adds it when WebClient and retry-reactor are there.
			.and().doNotHaveSimpleName("ReactiveHttpCall").and().doNotHaveSimpleName("RetryingExchangeFilterFunction")
			.and().doNotHaveSimpleName("ObservedExchanges")
			// The request body a retried WebClient call keeps to send again, used only by ReactiveHttpCall.
			.and().haveNameNotMatching("dev\\.retrykit\\.spring\\.boot\\.http\\.client\\.ReplayableBody.*")
			// The server side of retry at one layer in a WebFlux application, created only in one.
			.and().haveNameNotMatching("dev\\.retrykit\\.spring\\.boot\\.http\\.server\\.RetryHopsWebFilter.*")
			.and().haveNameNotMatching("dev\\.retrykit\\.spring\\.boot\\.autoconfigure\\.RetryHttpClientAutoConfiguration.*")
			.should().dependOnClassesThat().resideInAnyPackage("reactor..", "org.reactivestreams..", "dev.retrykit.reactor..")
			.because("Reactor and retry-reactor are optional: only the reactive variants, loaded when they are present, use them")
			.check(this.spring);
	}

	@Test
	void onlyTheSuspendRecoverCallTouchesKotlin() {
		// KotlinCoroutines and its nested classes (an attempt's continuation and its coroutine context element).
		noClasses().that().haveNameNotMatching("dev\\.retrykit\\.spring\\.boot\\.aop\\.KotlinCoroutines(\\$.*)?")
			.should().dependOnClassesThat().resideInAnyPackage("kotlin..", "kotlinx..")
			.because("Kotlin is optional: a Java application must never load a Kotlin class through the starter")
			.check(this.spring);
	}

}
