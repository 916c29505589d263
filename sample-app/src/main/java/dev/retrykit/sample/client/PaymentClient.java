package dev.retrykit.sample.client;

import dev.retrykit.annotation.Retryable;
import dev.retrykit.sample.client.Model.PaymentReceipt;

import org.springframework.stereotype.Component;

/**
 * Charges orders with stateful retry (instance {@code payments}): a failed charge is rethrown at once
 * (so a surrounding transaction or message delivery can roll back), and the next request for the same
 * order continues the count kept in the context cache.
 */
@Component
public class PaymentClient {

	private final Downstream downstream;

	PaymentClient(Downstream downstream) {
		this.downstream = downstream;
	}

	/**
	 * @param orderId the order
	 * @return the receipt
	 */
	@Retryable(value = "payments", stateful = true, key = "#orderId")
	public PaymentReceipt pay(String orderId) {
		return Downstream.body(this.downstream.client().post().uri("/payments/{orderId}", orderId).retrieve(),
				PaymentReceipt.class);
	}

}
