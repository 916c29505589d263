package dev.retrykit;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

class ArchitectureTest {

	private final JavaClasses core = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("dev.retrykit");

	@Test
	void coreDependsOnTheJdkAndJSpecifyOnly() {
		classes().should().onlyDependOnClassesThat()
			.resideInAnyPackage("dev.retrykit..", "java..", "javax.annotation.processing..", "org.jspecify.annotations..")
			.because("retry-core has no runtime dependency but the JDK")
			.check(this.core);
	}

	@Test
	void spiDoesNotDependOnInternals() {
		noClasses().that().resideInAPackage("dev.retrykit.spi..").should().dependOnClassesThat()
			.resideInAPackage("dev.retrykit.internal..")
			.because("extension points must not expose the implementation")
			.check(this.core);
	}

}
