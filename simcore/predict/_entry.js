// Front end of simcore.predict.view's entry row: the student's entry (a number with its unit, or one of the
// choices), "Commit prediction" and "Try another setting", as ONE widget model. Built from ipywidgets
// (Text, HTML, RadioButtons, two Buttons, an HBox, each with its layout and style model) the row cost 15
// models, and every model is a message and a view the page builds while Run All is still drawing the first
// live plot. The row sends {event: "commit", text, choice} or {event: "another"}; Python decides and
// answers by setting the traits (disabled, button_text, show_another, text, choice).

function render({ model, el }) {
  el.classList.add("simcore-entry");
  const row = document.createElement("div");
  row.className = "simcore-entry-row";
  let input = null;
  const radios = [];
  if (model.get("kind") === "number") {
    input = document.createElement("input");
    input.type = "text";
    input.placeholder = "your prediction";
    input.className = "simcore-entry-text";
    input.setAttribute("aria-label", "your prediction");
    input.addEventListener("change", () => { model.set("text", input.value); model.save_changes(); });
    row.appendChild(input);
    const unit = document.createElement("span");
    unit.className = "simcore-entry-unit";
    unit.textContent = model.get("unit");
    row.appendChild(unit);
  } else {
    const group = document.createElement("div");
    group.className = "simcore-entry-choices";
    group.setAttribute("role", "radiogroup");
    const name = "simcore-choice-" + Math.random().toString(36).slice(2);
    model.get("labels").forEach((text, i) => {
      const label = document.createElement("label");
      const radio = document.createElement("input");
      radio.type = "radio";
      radio.name = name;
      radio.value = String(i);
      radio.addEventListener("change", () => { model.set("choice", i); model.save_changes(); });
      label.appendChild(radio);
      label.appendChild(document.createTextNode(" " + text));
      group.appendChild(label);
      radios.push(radio);
    });
    row.appendChild(group);
  }
  const commit = document.createElement("button");
  commit.className = "jupyter-button mod-primary simcore-commit";
  commit.title = "Final for this setting: the answer appears at once";
  commit.addEventListener("click", () => {
    const picked = radios.findIndex((r) => r.checked);
    model.send({ event: "commit", text: input ? input.value : "", choice: picked });
  });
  row.appendChild(commit);
  const another = document.createElement("button");
  another.className = "jupyter-button simcore-another";
  another.textContent = "Try another setting";
  another.addEventListener("click", () => model.send({ event: "another" }));
  el.appendChild(row);
  el.appendChild(another);

  function sync() {
    const disabled = model.get("disabled");
    commit.textContent = model.get("button_text");
    commit.disabled = disabled;
    if (input) {
      input.disabled = disabled;
      if (document.activeElement !== input || disabled) input.value = model.get("text");
    }
    const choice = model.get("choice");
    radios.forEach((r, i) => { r.disabled = disabled; r.checked = i === choice; });
    another.style.display = model.get("show_another") ? "" : "none";
  }
  sync();
  const events = "change:disabled change:button_text change:text change:choice change:show_another";
  model.on(events, sync);
  return () => model.off(events, sync);
}

export default { render };
