package org.gradle.api.tasks.testing.junitplatform;

/**
 * Stand-in of Gradle's type of this name, for the tests of the Gradle build edits: OpenRewrite's Groovy build-script
 * base class links against it, and Gradle's API jar is not on Maven Central (see GradleBuildMigrationTests).
 */
public interface JUnitPlatformOptions {

}
