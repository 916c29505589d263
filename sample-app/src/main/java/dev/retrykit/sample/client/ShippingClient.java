package dev.retrykit.sample.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import dev.retrykit.annotation.Retryable;
import dev.retrykit.sample.client.Model.ShippingQuote;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * Asks for shipping quotes asynchronously (instance {@code shipping}): the method returns a
 * {@link CompletableFuture}, and each retry calls it again without blocking a thread while waiting;
 * {@code attempt-timeout} bounds each attempt.
 */
@Component
public class ShippingClient implements DisposableBean {

	private final Downstream downstream;

	private final ExecutorService io = Executors.newFixedThreadPool(4);

	ShippingClient(Downstream downstream) {
		this.downstream = downstream;
	}

	/**
	 * @param orderId the order
	 * @return the quote, once the downstream answers
	 */
	@Retryable("shipping")
	public CompletableFuture<ShippingQuote> quote(String orderId) {
		return CompletableFuture.supplyAsync(() -> Downstream.body(this.downstream.client().get()
			.uri("/shipping/{orderId}", orderId).retrieve(), ShippingQuote.class), this.io);
	}

	@Override
	public void destroy() {
		this.io.shutdownNow();
	}

}
