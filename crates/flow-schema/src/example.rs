//! The example document: a realistic pizza-order bot that uses 13 of the 14 step kinds.
//!
//! It validates and lints with no diagnostic at all (every step reachable, every path ends in
//! `end` or `handoff`, every variable written and read, no burst of more than 5 sends). It has
//! no `subflow` step: a subflow names another document, and a lone example would then fail lint
//! with `missing-subflow`.

/// A realistic document that validates and lints clean (pretty JSON).
pub const EXAMPLE_FLOW_DOCUMENT: &str = r#"{
  "$schema": "https://raw.githubusercontent.com/botmesh/botmesh-mcp/main/docs/schema/flow.schema.json",
  "version": 2,
  "id": "pizza-order",
  "metadata": {
    "title": "Pizzeria Napoli: order a pizza",
    "description": "Takes a pizza order over chat: pizza, size and address, quotes the price, places the order and hands over to a person when asked.",
    "locale": "en",
    "tags": ["orders", "food", "delivery"]
  },
  "trigger": {
    "keywords": ["pizza", "order", "pedido"],
    "match": "contains"
  },
  "variables": {
    "pizza": { "type": "string", "description": "The pizza chosen from the list." },
    "size": { "type": "string", "description": "Small, medium or large." },
    "address": { "type": "string", "description": "Where the pizza goes." },
    "total": { "type": "number", "default": 0, "description": "The price quoted, in euros." },
    "order_id": { "type": "string", "description": "The kitchen's order number." }
  },
  "steps": [
    {
      "id": "welcome",
      "kind": "message",
      "text": "Hi {{contact_name}}, welcome to Pizzeria Napoli! / ¡Hola! 🍕"
    },
    {
      "id": "menu_photo",
      "kind": "media",
      "media": "image",
      "url": "https://cdn.example.com/napoli/menu.jpg",
      "caption": "Today's menu"
    },
    {
      "id": "choose_pizza",
      "kind": "list",
      "text": "Which pizza would you like?",
      "button": "See pizzas",
      "sections": [
        {
          "title": "Classics",
          "rows": [
            { "id": "margherita", "title": "Margherita", "description": "Tomato, mozzarella, basil" },
            { "id": "pepperoni", "title": "Pepperoni", "description": "Tomato, mozzarella, pepperoni" },
            { "id": "four_cheese", "title": "Four cheese" }
          ]
        },
        {
          "title": "Specials",
          "rows": [
            { "id": "veggie", "title": "Veggie", "description": "Peppers, mushrooms, olives" },
            { "id": "bbq_chicken", "title": "BBQ chicken" }
          ]
        }
      ],
      "footer": "All pizzas are 33 cm"
    },
    {
      "id": "save_pizza",
      "kind": "set",
      "var": "pizza",
      "value": "{{last_message}}"
    },
    {
      "id": "choose_size",
      "kind": "buttons",
      "text": "What size for your {{pizza}}?",
      "save": "size",
      "buttons": [
        { "id": "small", "title": "Small" },
        { "id": "medium", "title": "Medium" },
        { "id": "large", "title": "Large" }
      ]
    },
    {
      "id": "ask_address",
      "kind": "ask",
      "text": "Where should we deliver it? Please write the street, number and town.",
      "save": "address",
      "input": "text",
      "pattern": "^.{8,200}$",
      "retries": 2,
      "retryText": "That looks too short for an address. Street, number and town, please.",
      "onFail": "agent"
    },
    {
      "id": "quote",
      "kind": "action",
      "handler": "orders.quote",
      "args": { "pizza": "{{pizza}}", "size": "{{size}}", "currency": "EUR" },
      "save": "total"
    },
    {
      "id": "check_total",
      "kind": "branch",
      "cases": [
        { "when": { "var": "total", "op": "gte", "value": 30 }, "next": "free_delivery" }
      ],
      "default": "summary"
    },
    {
      "id": "free_delivery",
      "kind": "message",
      "text": "Good news: orders of 30 € or more travel for free."
    },
    {
      "id": "summary",
      "kind": "buttons",
      "header": "Your order",
      "text": "{{size}} {{pizza}} to {{address}}, {{total}} € in all. Shall we bake it?",
      "buttons": [
        { "id": "confirm", "title": "Yes, order", "next": "place_order" },
        { "id": "change", "title": "Change pizza", "next": "choose_pizza" },
        { "id": "person", "title": "Talk to a person", "next": "agent" }
      ],
      "footer": "Pay on delivery"
    },
    {
      "id": "place_order",
      "kind": "action",
      "handler": "orders.place",
      "args": { "pizza": "{{pizza}}", "size": "{{size}}", "address": "{{address}}" },
      "save": "order_id"
    },
    {
      "id": "confirmation",
      "kind": "template",
      "name": "order_confirmation",
      "language": "en",
      "parameters": ["{{order_id}}", "{{total}}"]
    },
    {
      "id": "shop_location",
      "kind": "location",
      "latitude": 40.8518,
      "longitude": 14.2681,
      "name": "Pizzeria Napoli",
      "address": "Via dei Tribunali 32, Napoli"
    },
    {
      "id": "oven",
      "kind": "delay",
      "seconds": 3,
      "typing": true
    },
    {
      "id": "done",
      "kind": "end",
      "text": "Order {{order_id}} is in the oven. Thank you, and buon appetito!"
    },
    {
      "id": "agent",
      "kind": "handoff",
      "queue": "orders",
      "text": "A person from our team will answer you here in a moment."
    }
  ]
}
"#;
