package dev.retrykit.spring.boot.aop;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import dev.retrykit.RetryRegistry;
import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Recover;
import dev.retrykit.annotation.Retryable;

import org.springframework.aop.framework.ProxyFactory;

/**
 * What a Java application does with the starter's aspect: a synchronous retry, a recovered call and an
 * asynchronous retry through a proxy. {@link JavaOnlyApplicationTests} runs it in a class loader that
 * has no Kotlin; it answers what each call returned.
 */
public class JavaOnlyScenario implements Supplier<List<Object>> {

	@Override
	public List<Object> get() {
		VirtualTime time = new VirtualTime();
		RetryRegistry registry = RetryRegistry.builder().virtualTime(time).build();
		RetryableMethodResolver resolver = new RetryableMethodResolver(registry);
		ProxyFactory factory = new ProxyFactory(new Client());
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new RetryAdvisor(() -> resolver, 0));
		Client client = (Client) factory.getProxy(JavaOnlyScenario.class.getClassLoader());
		try {
			String fetched = client.fetch();
			String recovered = client.recovered("sku-1");
			CompletableFuture<String> async = client.async();
			time.advance(java.time.Duration.ofSeconds(1));
			return List.of(fetched, recovered, async.join());
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	public static class Client {

		private final AtomicInteger calls = new AtomicInteger();

		@Retryable
		public String fetch() throws IOException {
			if (this.calls.incrementAndGet() < 2) {
				throw new IOException("down");
			}
			return "fetched after " + this.calls.get() + " calls";
		}

		@Retryable
		public String recovered(String sku) throws IOException {
			throw new IOException("down");
		}

		@Recover
		public String fallback(IOException failure, String sku) {
			return "recovered " + sku;
		}

		@Retryable
		public CompletableFuture<String> async() {
			return (this.calls.incrementAndGet() % 2 == 1) ? CompletableFuture.failedFuture(new IOException("down"))
					: CompletableFuture.completedFuture("async");
		}

	}

}
