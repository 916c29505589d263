package dev.retrykit.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A service that calls a scripted flaky downstream through retrykit.
 */
@SpringBootApplication
public class SampleApplication {

	/**
	 * @param args the command-line arguments
	 */
	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
