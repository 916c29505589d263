package dev.retrykit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.logging.LogManager;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Configures java.util.logging, which the core's {@code System.Logger} writes to, from
 * {@code test-logging.properties} before the first test class runs: the loggers of failures that tests
 * provoke on purpose are quiet, every other logger logs as usual. Registered for every test through
 * JUnit's extension auto-detection.
 */
public final class QuietTestLogging implements BeforeAllCallback {

	static {
		try (InputStream config = QuietTestLogging.class.getResourceAsStream("/test-logging.properties")) {
			if (config != null) {
				LogManager.getLogManager().readConfiguration(config);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		// The configuration is read once, when the class is loaded.
	}

}
