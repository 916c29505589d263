package dev.retrykit;

import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.tngtech.archunit.base.DescribedPredicate;
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
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.Test;

import dev.retrykit.context.RetryContext;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

class ArchitectureTests {

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

	/**
	 * DESIGN.md's package rule: retry-core's packages form no cycle, the root counted, except through the
	 * assembly/engine seam. The assembly users type ({@code RetryTemplate}, its builder, {@code RetryRegistry})
	 * constructs the engine's entry points in {@code internal}, and the engine reads {@code RetryConfig}:
	 * Resilience4j's {@code Retry.of -> RetryImpl} shape. The one temporary exception is the deprecated
	 * {@code RetryContext.current()}, which forwards to {@code RetryTemplate.currentContext()} for one release.
	 * Any other dependency that closes a cycle fails the rule.
	 */
	@Test
	void packagesFormNoCycleButTheAssemblyEngineSeam() {
		slices().assignedFrom(ROOT_AND_EACH_SUBPACKAGE).should().beFreeOfCycles()
			.ignoreDependency(within("dev.retrykit.RetryTemplate"), engineTypes("RetryRuntime", "SyncRetry",
					"StatefulRetry", "AsyncRetry", "ContextStack"))
			.ignoreDependency(within("dev.retrykit.RetryTemplateBuilder"), engineTypes("RetryRuntime"))
			.ignoreDependency(within("dev.retrykit.RetryRegistry"), engineTypes("RetryRuntime", "FailbackEngine"))
			.ignoreDependency(within("dev.retrykit.context.RetryContext"), within("dev.retrykit.RetryTemplate"))
			.because("core's packages are layered, the root package counted: the context at the ground floor, "
					+ "extension points above it, the engine, then the assembly users type")
			.check(this.core);
	}

	@Test
	void onlyTheRootApiReachesTheEngine() {
		noClasses().that().resideOutsideOfPackages("dev.retrykit", "dev.retrykit.internal..")
			.should().dependOnClassesThat().resideInAPackage("dev.retrykit.internal..")
			.because("the engine uses the breaker, the timing wheel and the rest, not the other way round")
			.check(this.core);
	}

	/** One slice for the root package, one for each package below it (with its own subpackages). */
	private static final SliceAssignment ROOT_AND_EACH_SUBPACKAGE = new SliceAssignment() {

		@Override
		public SliceIdentifier getIdentifierOf(JavaClass type) {
			String name = type.getPackageName();
			if (name.equals("dev.retrykit")) {
				return SliceIdentifier.of("dev.retrykit");
			}
			if (!name.startsWith("dev.retrykit.")) {
				return SliceIdentifier.ignore();
			}
			int end = name.indexOf('.', "dev.retrykit.".length());
			return SliceIdentifier.of((end < 0) ? name : name.substring(0, end));
		}

		@Override
		public String getDescription() {
			return "dev.retrykit and each of its subpackages";
		}

	};

	/** A type with its nested, local and anonymous classes. */
	private static DescribedPredicate<JavaClass> within(String typeName) {
		return DescribedPredicate.describe(typeName, type -> topLevelName(type).equals(typeName));
	}

	private static DescribedPredicate<JavaClass> engineTypes(String... simpleNames) {
		Set<String> names = Stream.of(simpleNames).map(name -> "dev.retrykit.internal." + name)
			.collect(Collectors.toSet());
		return DescribedPredicate.describe("engine types " + names, type -> names.contains(topLevelName(type)));
	}

	private static DescribedPredicate<JavaClass> type(Class<?> type) {
		return within(type.getName());
	}

	private static String topLevelName(JavaClass type) {
		String name = type.getName();
		int nested = name.indexOf('$');
		return (nested < 0) ? name : name.substring(0, nested);
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
					.filter(ArchitectureTests::isVisible)
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
