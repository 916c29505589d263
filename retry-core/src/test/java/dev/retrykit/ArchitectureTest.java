package dev.retrykit;

import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

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

	@Test
	void corePackagesFormNoCycle() {
		slices().matching("dev.retrykit.(*)..").should().beFreeOfCycles()
			.because("core's packages are layered, as Spring Framework's and Boot's are")
			.check(this.core);
	}

	@Test
	void noInternalTypeAppearsInAPublicSignature() {
		classes().that().arePublic().and().resideOutsideOfPackage("dev.retrykit.internal..")
			.should(exposeNoInternalType())
			.because("what users can type is public API; the implementation may change at any time")
			.check(this.core);
	}

	private static ArchCondition<JavaClass> exposeNoInternalType() {
		return new ArchCondition<>("expose no dev.retrykit.internal type in a public or protected signature") {
			@Override
			public void check(JavaClass type, ConditionEvents events) {
				Stream.<JavaMember>concat(Stream.concat(type.getMethods().stream(), type.getConstructors().stream()),
						type.getFields().stream())
					.filter(ArchitectureTest::isVisible)
					.forEach(member -> {
						Set<String> internal = signatureTypes(member).stream().map(JavaClass::getName)
							.filter(name -> name.startsWith("dev.retrykit.internal."))
							.collect(Collectors.toCollection(java.util.TreeSet::new));
						if (!internal.isEmpty()) {
							events.add(SimpleConditionEvent.violated(member,
									member.getFullName() + " exposes " + internal));
						}
					});
			}
		};
	}

	private static boolean isVisible(JavaMember member) {
		return member.getModifiers().contains(JavaModifier.PUBLIC) || member.getModifiers().contains(JavaModifier.PROTECTED);
	}

	private static Set<JavaClass> signatureTypes(JavaMember member) {
		if (member instanceof JavaField field) {
			return field.getType().getAllInvolvedRawTypes();
		}
		JavaCodeUnit unit = (JavaCodeUnit) member;
		Set<JavaClass> types = new java.util.HashSet<>(unit.getReturnType().getAllInvolvedRawTypes());
		unit.getParameterTypes().forEach(parameter -> types.addAll(parameter.getAllInvolvedRawTypes()));
		unit.getThrowsClause().getTypes().forEach(thrown -> types.add(thrown));
		return types;
	}


}
