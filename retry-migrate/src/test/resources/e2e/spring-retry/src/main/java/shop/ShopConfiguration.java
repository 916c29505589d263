package shop;

import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.retry.annotation.EnableRetry;

@Configuration(proxyBeanMethods = false)
@EnableRetry
@Import({ Inventory.class, Prices.class, Payments.class, Orders.class, Jobs.class })
public class ShopConfiguration {
}
