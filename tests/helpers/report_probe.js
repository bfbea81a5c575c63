// report_probe.js: appended to a COPY of report.html by the browser test
// (tests/integration/120-report-browser.t); the report itself has no script.
//
// Once the page is laid out, it writes its verdict into the DOM (Chromium's
// --dump-dom prints it): "PROBE PASS ..." or "PROBE FAIL" with one line per
// fault:
//   - the page scrolls horizontally;
//   - a text element (block, table cell, heading...) overflows its box, or
//     reaches past the page's right edge;
//   - an SVG element lies outside its picture's viewBox (it would be
//     clipped), or a picture is wider than the page.
(function () {
	function name(el) {
		var t = (el.textContent || "").replace(/\s+/g, " ").trim();
		return el.tagName.toLowerCase() + (el.className && el.className.baseVal === undefined && el.className ?
			"." + el.className : "") + ' "' + t.slice(0, 60) + '"';
	}

	function probe() {
		var bad = [], de = document.documentElement, page = de.clientWidth, texts = 0, shapes = 0;
		var all = document.body.querySelectorAll("*"), svgs = document.querySelectorAll("svg");

		if (de.scrollWidth > page)
			bad.push("the page scrolls horizontally: " + de.scrollWidth + " px wide in " + page + " px");
		for (var i = 0; i < all.length; i++) {
			var el = all[i], cs, r;
			if (el.closest("svg") || el.id === "probe-verdict" || !(el.textContent || "").trim())
				continue;
			cs = getComputedStyle(el);
			if (cs.display === "none")
				continue;
			r = el.getBoundingClientRect();
			if (r.right > page + 1 || r.left < -1)
				bad.push("past the page's edge (" + Math.round(r.left) + ".." + Math.round(r.right) +
					 " of " + page + " px): " + name(el));
			if (cs.display === "inline")
				continue;
			texts++;
			if (el.scrollWidth > el.clientWidth + 1)
				bad.push("text overflows its box (" + el.scrollWidth + " > " + el.clientWidth +
					 " px): " + name(el));
		}
		for (var s = 0; s < svgs.length; s++) {
			var svg = svgs[s], vb = svg.viewBox.baseVal, box = svg.getBoundingClientRect();
			var parts = svg.querySelectorAll("text, rect, circle, line, path");
			if (!vb || vb.width === 0) {
				bad.push("an SVG without a viewBox (it cannot scale down): " + name(svg));
				vb = {x: 0, y: 0, width: svg.width.baseVal.value, height: svg.height.baseVal.value};
			}
			if (box.right > page + 1 || box.left < -1)
				bad.push("an SVG past the page's edge (" + Math.round(box.right) + " of " + page + " px): " +
					 name(svg));
			for (var p = 0; p < parts.length; p++) {
				var b = parts[p].getBBox();
				shapes++;
				if (b.x < vb.x - 0.5 || b.y < vb.y - 0.5 || b.x + b.width > vb.x + vb.width + 0.5 ||
				    b.y + b.height > vb.y + vb.height + 0.5)
					bad.push("clipped in its SVG (" + [b.x, b.y, b.width, b.height].map(Math.round) +
						 " outside 0,0," + vb.width + "," + vb.height + "): " + name(parts[p]));
			}
		}
		var out = document.createElement("pre");
		out.id = "probe-verdict";
		out.textContent = (bad.length ? "PROBE FAIL\n" + bad.join("\n") : "PROBE PASS") + "\nPROBE checked " +
				  texts + " text elements, " + svgs.length + " pictures, " + shapes +
				  " shapes; page " + page + " x " + de.scrollHeight + " px\n";
		document.body.appendChild(out);
	}

	if (document.readyState === "complete")
		probe();
	else
		window.addEventListener("load", probe);
})();
