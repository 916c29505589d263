package dev.retrykit.spring.boot.http.server;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.Deadline;
import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Retryable;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A servlet application for the tests of the server side of retry at one layer: handlers whose {@code @Retryable}
 * calls give up (sync, {@code CompletableFuture}, {@code Mono}), recover, or fail without retrying, and one that
 * tells the deadline it runs under. In virtual time; no component scan; no Redis (see RetriesTestApplication).
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
class HopsServletApplication {

	@Bean
	VirtualTime virtualTime() {
		return new VirtualTime();
	}

	@Bean
	Leaf leaf() {
		return new Leaf();
	}

	/** Calls of instance {@code leaf}, failing as each handler needs. */
	static class Leaf {

		private final AtomicInteger calls = new AtomicInteger();

		/** {@return the calls so far: through the proxy, which has no state of its own} */
		public AtomicInteger calls() {
			return this.calls;
		}

		@Retryable("leaf")
		public String fail() throws IOException {
			this.calls.incrementAndGet();
			throw new IOException("leaf down");
		}

		@Retryable("leaf")
		public String failOnce() throws IOException {
			if (this.calls.incrementAndGet() == 1) {
				throw new IOException("leaf down once");
			}
			return "recovered";
		}

		@Retryable(value = "leaf", noRetryFor = IllegalArgumentException.class)
		public String refuse() {
			this.calls.incrementAndGet();
			throw new IllegalArgumentException("not for retrying");
		}

		@Retryable("leaf")
		public CompletableFuture<String> failAsync() {
			this.calls.incrementAndGet();
			return CompletableFuture.failedFuture(new IOException("leaf down"));
		}

		@Retryable("leaf")
		public Mono<String> failMono() {
			return Mono.defer(() -> {
				this.calls.incrementAndGet();
				return Mono.error(new IOException("leaf down"));
			});
		}

	}

	/** Registered as a member class of the configuration. */
	@RestController
	static class Api {

		private final Leaf leaf;

		Api(Leaf leaf) {
			this.leaf = leaf;
		}

		@GetMapping("/exhausted")
		String exhausted() throws IOException {
			return this.leaf.fail();
		}

		@GetMapping("/exhausted-503")
		ResponseEntity<String> exhausted503() {
			try {
				return ResponseEntity.ok(this.leaf.fail());
			}
			catch (IOException ex) {
				return ResponseEntity.status(503).body("leaf down");
			}
		}

		@GetMapping("/exhausted-200")
		String exhaustedButAnswered() {
			try {
				return this.leaf.fail();
			}
			catch (IOException ex) {
				return "fallback";
			}
		}

		@GetMapping("/recovered-503")
		ResponseEntity<String> recovered503() throws IOException {
			return ResponseEntity.status(503).body(this.leaf.failOnce());
		}

		@GetMapping("/not-retryable")
		String notRetryable() {
			return this.leaf.refuse();
		}

		@GetMapping("/async")
		CompletableFuture<String> async() {
			return this.leaf.failAsync();
		}

		@GetMapping("/mono")
		Mono<String> mono() {
			return this.leaf.failMono();
		}

		@GetMapping("/deadline")
		String deadline() {
			Deadline deadline = Deadline.current();
			return (deadline != null) ? Long.toString(deadline.remaining().toMillis()) : "none";
		}

	}

}
